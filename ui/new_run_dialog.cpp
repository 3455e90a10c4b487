#include "ui/new_run_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>
#include <stdexcept>

#include "core/run_log.h"

namespace fovea::ui {

namespace {

/// The accessor lambdas below read better with a short name.
using Config = fovea::TrainConfig;

}  // namespace

NewRunDialog::NewRunDialog(const QString& runs_root, QWidget* parent)
    : QDialog(parent), runs_root_(runs_root), tabs_(new QTabWidget), error_(new QLabel) {
  setWindowTitle(tr("New training run"));
  base_ = fovea::recommended_train_config();
  base_.threads = 0;
  error_->setStyleSheet("color: #b00020");
  error_->setWordWrap(true);
  error_->hide();

  auto* recommended = new QPushButton(tr("Recommended recipe"));
  recommended->setToolTip(tr("The shipped recipe: attention supervision, auxiliary loss, learned h0/c0"));
  auto* paper = new QPushButton(tr("Paper's objective"));
  paper->setToolTip(tr("Xu et al. 2015 exactly: no auxiliary loss, no attention supervision, h0/c0 from the mean "
                       "annotation, penalty summed over cells"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Start training"));
  buttons->button(QDialogButtonBox::Ok)->setObjectName("start");
  auto* presets = new QHBoxLayout;
  presets->addWidget(new QLabel(tr("Start from:")));
  presets->addWidget(recommended);
  presets->addWidget(paper);
  presets->addStretch();

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(presets);
  layout->addWidget(tabs_, 1);
  layout->addWidget(error_);
  layout->addWidget(buttons);
  buildPages();
  setConfig(base_);
  suggestOutputFolder();

  connect(buttons, &QDialogButtonBox::accepted, this, &NewRunDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(recommended, &QPushButton::clicked, this, [this] {
    auto c = config();
    const auto keep = c;
    c = fovea::recommended_train_config();
    c.out_dir = keep.out_dir;
    c.model.attention = keep.model.attention;
    setConfig(c);
  });
  connect(paper, &QPushButton::clicked, this, [this] {
    auto c = config();
    fovea::apply_paper_objective(c);
    setConfig(c);
  });
  resize(980, 640);
}

QWidget* NewRunDialog::addPage(const QString& title) {
  auto* page = new QWidget;
  auto* grid = new QGridLayout(page);
  grid->setColumnStretch(2, 1);
  grid->setVerticalSpacing(6);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setWidget(page);
  scroll->setFrameShape(QFrame::NoFrame);
  tabs_->addTab(scroll, title);
  return page;
}

void NewRunDialog::addRow(QWidget* page, const QString& label, const QString& explanation, Setting setting) {
  auto* grid = static_cast<QGridLayout*>(page->layout());
  const int row = grid->rowCount();
  auto* name = new QLabel(label);
  name->setBuddy(setting.editor);
  auto* help = new QLabel(explanation);
  help->setStyleSheet("color: gray");
  help->setWordWrap(true);
  setting.editor->setObjectName(setting.name);
  setting.editor->setToolTip(explanation);
  grid->addWidget(name, row, 0);
  QWidget* cell = setting.editor;
  if (auto* browse = setting.editor->property("browse").value<QWidget*>()) {
    // A path: the field and its Browse button side by side.
    cell = new QWidget;
    auto* line = new QHBoxLayout(cell);
    line->setContentsMargins(0, 0, 0, 0);
    line->addWidget(setting.editor, 1);
    line->addWidget(browse);
    cell->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  }
  const bool wide = qobject_cast<QLineEdit*>(setting.editor) != nullptr ||
                    setting.editor->property("browse").value<QWidget*>() != nullptr;
  grid->addWidget(cell, row, 1, wide ? Qt::Alignment() : Qt::AlignLeft);
  grid->addWidget(help, row, 2);
  settings_ << setting;
}

void NewRunDialog::addInt(QWidget* page, const QString& name, const QString& label, const QString& explanation,
                          int lo, int hi, std::function<std::int64_t(const Config&)> get,
                          std::function<void(Config&, std::int64_t)> set) {
  auto* box = new QSpinBox;
  box->setRange(lo, hi);
  box->setMinimumWidth(110);
  addRow(page, label, explanation,
         {name, box, [box, set](Config& c) { set(c, box->value()); }, [box, get](const Config& c) { box->setValue(int(get(c))); }});
}

void NewRunDialog::addReal(QWidget* page, const QString& name, const QString& label, const QString& explanation,
                           double lo, double hi, int decimals, std::function<double(const Config&)> get,
                           std::function<void(Config&, double)> set) {
  auto* box = new QDoubleSpinBox;
  box->setRange(lo, hi);
  box->setDecimals(decimals);
  box->setSingleStep(std::pow(10.0, -std::min(decimals, 2)));
  box->setMinimumWidth(110);
  addRow(page, label, explanation,
         {name, box, [box, set](Config& c) { set(c, box->value()); }, [box, get](const Config& c) { box->setValue(get(c)); }});
}

void NewRunDialog::addFlag(QWidget* page, const QString& name, const QString& label, const QString& explanation,
                           std::function<bool(const Config&)> get, std::function<void(Config&, bool)> set) {
  auto* box = new QCheckBox;
  addRow(page, label, explanation,
         {name, box, [box, set](Config& c) { set(c, box->isChecked()); }, [box, get](const Config& c) { box->setChecked(get(c)); }});
}

void NewRunDialog::addChoice(QWidget* page, const QString& name, const QString& label, const QString& explanation,
                             const QStringList& choices, std::function<std::string(const Config&)> get,
                             std::function<void(Config&, const std::string&)> set) {
  auto* box = new QComboBox;
  box->addItems(choices);
  if (pending_browse_) {
    box->setEditable(true);  // a path can be typed or browsed
    box->setMinimumWidth(280);
    box->setProperty("browse", QVariant::fromValue<QWidget*>(pending_browse_));
  }
  pending_browse_ = nullptr;
  addRow(page, label, explanation,
         {name, box, [box, set](Config& c) { set(c, box->currentText().toStdString()); },
          [box, get](const Config& c) { box->setCurrentText(QString::fromStdString(get(c))); }});
}

void NewRunDialog::addText(QWidget* page, const QString& name, const QString& label, const QString& explanation,
                           std::function<std::string(const Config&)> get,
                           std::function<void(Config&, const std::string&)> set) {
  auto* edit = new QLineEdit;
  edit->setMinimumWidth(280);
  if (pending_browse_) edit->setProperty("browse", QVariant::fromValue<QWidget*>(pending_browse_));
  pending_browse_ = nullptr;
  addRow(page, label, explanation,
         {name, edit, [edit, set](Config& c) { set(c, edit->text().trimmed().toStdString()); },
          [edit, get](const Config& c) { edit->setText(QString::fromStdString(get(c))); }});
}

void NewRunDialog::suggestOutputFolder() {
  const auto stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
  const auto kind = value("attention").toString();
  setValue("out", QDir(runs_root_).filePath(kind + "-" + stamp));
}

fovea::TrainConfig NewRunDialog::config() const {
  auto c = base_;
  for (const auto& s : settings_) s.write(c);
  c.scenes.image_size = int(c.model.image_size);
  return c;
}

void NewRunDialog::setConfig(const fovea::TrainConfig& config) {
  base_ = config;
  for (const auto& s : settings_) s.read(config);
  updateHardOnly();
}

bool NewRunDialog::setValue(const QString& name, const QVariant& v) {
  auto* w = findChild<QWidget*>(name);
  if (!w) return false;
  if (auto* b = qobject_cast<QSpinBox*>(w)) b->setValue(v.toInt());
  else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) d->setValue(v.toDouble());
  else if (auto* c = qobject_cast<QCheckBox*>(w)) c->setChecked(v.toBool());
  else if (auto* x = qobject_cast<QComboBox*>(w)) x->setCurrentText(v.toString());
  else if (auto* e = qobject_cast<QLineEdit*>(w)) e->setText(v.toString());
  else return false;
  return true;
}

QVariant NewRunDialog::value(const QString& name) const {
  auto* w = findChild<QWidget*>(name);
  if (auto* b = qobject_cast<QSpinBox*>(w)) return b->value();
  if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) return d->value();
  if (auto* c = qobject_cast<QCheckBox*>(w)) return c->isChecked();
  if (auto* x = qobject_cast<QComboBox*>(w)) return x->currentText();
  if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text();
  return {};
}

QStringList NewRunDialog::settingNames() const {
  QStringList out;
  for (const auto& s : settings_) out << s.name;
  return out;
}

void NewRunDialog::accept() {
  try {
    auto c = config();
    c.validate();
    c.model.validate();
    if (QFileInfo::exists(QString::fromStdString(fovea::last_checkpoint_path(c.out_dir)))) {
      throw std::invalid_argument(c.out_dir + " already holds a run; resume it from the run list or choose another folder");
    }
    if (!c.init_from.empty() && !QFileInfo::exists(QString::fromStdString(c.init_from))) {
      throw std::invalid_argument(c.init_from + ": no such checkpoint to initialise from");
    }
    error_->hide();
    QDialog::accept();
  } catch (const std::exception& e) {
    error_->setText(QString::fromStdString(e.what()));
    error_->show();
  }
}

}  // namespace fovea::ui
