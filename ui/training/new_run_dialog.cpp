#include "ui/training/new_run_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/data/dataset_source.h"
#include "core/io/encoder_file_header.h"
#include "core/train/run_log.h"
#include "core/train/train_settings.h"
#include "ui/common/user_message.h"
#include "ui/common/window_fit.h"
#include "ui/training/new_run_checks.h"
#include "ui/training/run_estimate.h"

namespace fovea::ui {

namespace {

/// The setting's field name: its CLI option without "--".
QString field_name(const fovea::TrainSetting& s) { return QString::fromStdString(s.cli_name().substr(2)); }

}  // namespace

constexpr const char* kLastConfigKey = "training/last_config";

NewRunDialog::NewRunDialog(const QString& runs_root, QWidget* parent)
    : QDialog(parent),
      runs_root_(runs_root),
      tabs_(new QTabWidget),
      error_(new QLabel),
      plan_(new QLabel),
      encoder_(new QLabel),
      estimate_(std::make_unique<RunEstimate>()) {
  setWindowTitle(tr("New training run"));
  plan_->setObjectName("plan");
  plan_->setWordWrap(true);
  encoder_->setObjectName("encoder");
  encoder_->setWordWrap(true);
  error_->setStyleSheet("color: #b00020");
  error_->setWordWrap(true);
  error_->hide();

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Start training"));
  buttons->button(QDialogButtonBox::Ok)->setObjectName("start");
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buildPresets());
  layout->addWidget(tabs_, 1);
  layout->addWidget(encoder_);
  layout->addWidget(plan_);
  layout->addWidget(error_);
  layout->addWidget(buttons);
  buildPages();
  // The last run's settings, else the shipped recipe; a new folder either way.
  auto start = fovea::recommended_train_config();
  try {
    const auto saved = QSettings().value(kLastConfigKey).toString().toStdString();
    if (!saved.empty()) start = fovea::train_config_from_json(nlohmann::json::parse(saved));
  } catch (const std::exception&) {
    // written by another version, or damaged: the recipe
  }
  setConfig(start);
  suggestOutputFolder();
  // Any change: what applies and the plan follow. Enter in a field never starts a run.
  for (const auto& f : fields_) {
    if (auto* box = qobject_cast<QCheckBox*>(f.editor)) connect(box, &QCheckBox::toggled, this, &NewRunDialog::updateApplicable);
    else if (auto* spin = qobject_cast<QSpinBox*>(f.editor)) connect(spin, &QSpinBox::valueChanged, this, &NewRunDialog::updateApplicable);
    else if (auto* combo = qobject_cast<QComboBox*>(f.editor)) connect(combo, &QComboBox::currentTextChanged, this, &NewRunDialog::updateApplicable);
    else if (auto* edit = qobject_cast<QLineEdit*>(f.editor)) connect(edit, &QLineEdit::textChanged, this, &NewRunDialog::updateApplicable);
  }
  for (auto* button : findChildren<QPushButton*>()) button->setAutoDefault(false);  // Enter presses no button
  // The folder's name says the attention: it follows the field until the user names the folder.
  if (auto* attention = findChild<QComboBox*>("attention")) {
    connect(attention, &QComboBox::currentTextChanged, this, [this] {
      if (value("out").toString() == suggested_out_) suggestOutputFolder();
    });
  }
  updateApplicable();

  connect(buttons, &QDialogButtonBox::accepted, this, &NewRunDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  fit_to_screen(this, {980, 640});
}

QHBoxLayout* NewRunDialog::buildPresets() {
  auto* recommended = new QPushButton(tr("Recommended recipe"));
  recommended->setToolTip(tr("The shipped recipe: the shipped pretrained encoder, auxiliary loss, attention supervision, learned h0/c0"));
  auto* paper = new QPushButton(tr("Paper's objective"));
  paper->setToolTip(tr("Xu et al. 2015's objective: no auxiliary loss, encoder pretraining or attention supervision, "
                       "h0/c0 from the mean annotation, penalty summed over cells; the encoder still starts pretrained, "
                       "as the paper's VGG did"));
  auto* self_critical = new QPushButton(tr("Self-critical (CIDEr-D)"));
  self_critical->setToolTip(tr("Optimise CIDEr-D directly from a model trained with cross-entropy (asked for when "
                               "\"init-from\" is empty): 5 sampled captions per image, each against the others' mean reward"));
  auto* quick = new QPushButton(tr("Quick test"));
  quick->setToolTip(tr("This model (attention, sizes, encoder and its pretraining) with the shipped recipe's every other setting, on a "
                       "small budget: a few minutes, to check a setup end to end"));
  auto* presets = new QHBoxLayout;
  presets->addWidget(new QLabel(tr("Start from:")));
  presets->addWidget(recommended);
  presets->addWidget(paper);
  presets->addWidget(self_critical);
  presets->addWidget(quick);
  presets->addStretch();

  connect(recommended, &QPushButton::clicked, this, [this] {
    const auto out = value("out"), attention = value("attention");
    setConfig(fovea::recommended_train_config());
    setValue("out", out);
    setValue("attention", attention);
  });
  connect(quick, &QPushButton::clicked, this, [this] {
    try {
      // A preset sets every field it names: the model stays, everything else is the recipe's
      // (a learning rate or an objective left from the last run does not survive it).
      const auto current = config();
      auto c = fovea::recommended_train_config();
      c.model = current.model;
      c.backbone = current.backbone;
      c.init_from = current.init_from;
      c.pretrain_steps = current.pretrain_steps;  // the encoder's pretraining belongs to the model (capped below)
      c.out_dir = current.out_dir;
      applyQuickTest(c);
      setConfig(c);
    } catch (const std::exception& e) {
      error_->setText(in_field_names(user_text(e)));
      error_->show();
    }
  });
  connect(paper, &QPushButton::clicked, this, [this] { applyPreset(fovea::apply_paper_objective); });
  connect(self_critical, &QPushButton::clicked, this, [this] {
    if (value("init-from").toString().trimmed().isEmpty()) {
      const auto file = QFileDialog::getOpenFileName(this, tr("The model to start from (trained with cross-entropy)"),
                                                     runs_root_, tr("Fovea models (*.ckpt)"));
      if (file.isEmpty()) return;
      setValue("init-from", file);
    }
    applyPreset(fovea::apply_self_critical_recipe);
  });
  return presets;
}

void NewRunDialog::buildPages() {
  for (const auto& group : fovea::train_setting_groups()) {
    auto* page = addPage(QString::fromStdString(group));
    for (const auto& s : fovea::train_settings()) {
      if (s.group == group) addField(page, s);
    }
    auto* grid = static_cast<QGridLayout*>(page->layout());
    if (group == "Runtime") addProcessesField(grid);
    grid->setRowStretch(grid->rowCount(), 1);  // the rows at the top, the space below them
  }
}

NewRunDialog::~NewRunDialog() = default;

void NewRunDialog::applyPreset(void (*preset)(fovea::TrainConfig&)) {
  try {
    auto c = config();
    preset(c);
    setConfig(c);
  } catch (const std::exception& e) {
    error_->setText(in_field_names(user_text(e)));
    error_->show();
  }
}

void NewRunDialog::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
    if (auto* button = qobject_cast<QPushButton*>(focusWidget())) button->click();  // a focused button still works
    event->accept();
    return;
  }
  QDialog::keyPressEvent(event);
}

void NewRunDialog::setPastRuns(const QList<RunSummary>& runs) {
  estimate_ = std::make_unique<RunEstimate>(runs);
  updatePlan();
}

void NewRunDialog::startFrom(const fovea::TrainConfig& config) {
  setConfig(config);
  suggestOutputFolder();
}

void NewRunDialog::setQueueing(bool queueing) {
  auto* start = findChild<QPushButton*>("start");
  start->setText(queueing ? tr("Queue run") : tr("Start training"));
  start->setToolTip(queueing ? tr("A run is training: this one starts when it ends") : QString());
}

void NewRunDialog::applyQuickTest(fovea::TrainConfig& c) {
  c.train_scenes = 3200;
  c.val_scenes = 100;
  c.batch_size = 32;
  c.epochs = 2;
  c.pretrain_steps = std::min<std::int64_t>(c.pretrain_steps, 100);
  c.max_steps = 300;
}

QString NewRunDialog::planText() const { return plan_->text(); }

QString NewRunDialog::encoderText() const { return encoder_->text(); }

void NewRunDialog::updatePlan() {
  const auto init_from = value("init-from").toString().trimmed();
  auto encoder = init_from.isEmpty() ? tr("Encoder: %1").arg(QString::fromStdString(fovea::describe_backbone(
                                           value("backbone").toString().trimmed().toStdString())))
                                     : tr("Encoder: the weights of %1").arg(init_from);
  try {
    const auto c = config();
    if (const auto frozen = fovea::frozen_encoder_blocks(c); frozen > 0) {
      encoder += tr("; while captioning its first %1 of %2 blocks keep their weights")
                     .arg(qlonglong(frozen))
                     .arg(qlonglong(c.model.encoder_widths.size()));
    }
    plan_->setText(tr("Plan: %1").arg(estimate_->describe(c)));
  } catch (const std::exception&) {
    plan_->setText(tr("Plan: (a field does not parse yet)"));
  }
  encoder_->setText(encoder);
}

void NewRunDialog::addProcessesField(QGridLayout* grid) {
  processes_ = new QSpinBox;
  processes_->setObjectName("processes");
  processes_->setRange(1, std::max(1, QThread::idealThreadCount()));
  processes_->setMinimumWidth(110);
  const int cores = std::max(1, QThread::idealThreadCount());
  const auto help = tr("Processes on this machine, each training on its share of every batch (the batch must divide "
                       "by them); at most %1 here, one per core of this machine (more would only take turns on them)")
                        .arg(cores);
  processes_->setToolTip(QStringLiteral("--processes: %1").arg(help));
  auto* label = new QLabel(tr("Processes"));
  label->setBuddy(processes_);
  auto* explanation = new QLabel(help);
  explanation->setStyleSheet("color: gray");
  explanation->setWordWrap(true);
  const int row = grid->rowCount();
  grid->addWidget(label, row, 0);
  grid->addWidget(processes_, row, 1, Qt::AlignLeft);
  grid->addWidget(explanation, row, 2);
}

int NewRunDialog::processes() const { return processes_->value(); }

void NewRunDialog::setProcesses(int processes) { processes_->setValue(processes); }

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

void NewRunDialog::addField(QWidget* page, const fovea::TrainSetting& s) {
  const auto value = s.default_value();
  QWidget* editor = nullptr;
  if (std::holds_alternative<bool>(value)) {
    editor = new QCheckBox;
  } else if (!s.choices.empty()) {
    auto* box = new QComboBox;
    for (const auto& c : s.choices) box->addItem(QString::fromStdString(c));
    editor = box;
  } else if (std::holds_alternative<std::int64_t>(value)) {
    auto* box = new QSpinBox;
    box->setRange(int(std::max<double>(s.min, INT_MIN)), int(std::min<double>(s.max, INT_MAX)));
    box->setMinimumWidth(110);
    editor = box;
  } else {
    auto* edit = new QLineEdit;
    edit->setMinimumWidth(std::holds_alternative<std::string>(value) ? 280 : 110);
    editor = edit;
  }
  const auto name = field_name(s);
  const auto help = QString::fromUtf8(s.help);
  editor->setObjectName(name);
  editor->setToolTip(QStringLiteral("--%1: %2").arg(name, help) +
                     (*s.applies_when != '\0' ? tr(" (applies to %1)").arg(QString::fromUtf8(s.applies_when)) : QString()));
  auto* grid = static_cast<QGridLayout*>(page->layout());
  const int row = grid->rowCount();
  auto* label = new QLabel(label_of(s));
  label->setBuddy(editor);
  auto* explanation = new QLabel(help);
  explanation->setStyleSheet("color: gray");
  explanation->setWordWrap(true);
  QWidget* cell = editor;
  if (auto* browse = browseButton(name)) {  // a path: the field and its Browse button side by side
    cell = new QWidget;
    auto* line = new QHBoxLayout(cell);
    line->setContentsMargins(0, 0, 0, 0);
    line->addWidget(editor, 1);
    line->addWidget(browse);
  }
  grid->addWidget(label, row, 0);
  grid->addWidget(cell, row, 1, qobject_cast<QLineEdit*>(editor) ? Qt::Alignment() : Qt::AlignLeft);
  grid->addWidget(explanation, row, 2);
  fields_ << Field{&s, editor};
}

QWidget* NewRunDialog::browseButton(const QString& name) {
  if (name != "out" && name != "init-from" && name != "dataset" && name != "images" && name != "backbone") return nullptr;
  auto* button = new QPushButton(tr("Browse…"));
  connect(button, &QPushButton::clicked, this, [this, name] {
    if (name == "out" || name == "images") {
      const auto dir = QFileDialog::getExistingDirectory(this, name == "out" ? tr("Folder to hold the new run")
                                                                            : tr("Folder of the dataset's images"),
                                                         runs_root_);
      if (dir.isEmpty()) return;
      setValue(name, name == "out" ? QDir(dir).filePath(QFileInfo(value("out").toString()).fileName()) : dir);
      return;
    }
    const auto filter = name == "dataset" ? tr("Caption datasets (*.json);;All files (*)")
                        : name == "backbone" ? tr("Encoder files and TorchScript modules (*.pt *.pth);;All files (*)")
                                             : tr("Fovea checkpoints (*.ckpt);;All files (*)");
    const auto file = QFileDialog::getOpenFileName(this, tr("Choose a file"), runs_root_, filter);
    if (file.isEmpty()) return;
    if (name == "dataset") {  // Karpathy's files are dataset_*.json; COCO's captions_*.json
      setValue(name, (QFileInfo(file).fileName().startsWith("captions") ? "coco:" : "karpathy:") + file);
    } else {
      setValue(name, file);
    }
  });
  return button;
}

void NewRunDialog::suggestOutputFolder() {
  const auto stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
  suggested_out_ = QDir(runs_root_).filePath(value("attention").toString() + "-" + stamp);
  setValue("out", suggested_out_);
}

QString NewRunDialog::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void NewRunDialog::applyField(const Field& f, fovea::TrainConfig& c) const {
  const auto& s = *f.setting;
  if (auto* box = qobject_cast<QCheckBox*>(f.editor)) s.set(c, box->isChecked());
  else if (auto* spin = qobject_cast<QSpinBox*>(f.editor)) s.set(c, std::int64_t(spin->value()));
  else if (auto* combo = qobject_cast<QComboBox*>(f.editor)) s.set(c, combo->currentText().toStdString());
  else if (auto* edit = qobject_cast<QLineEdit*>(f.editor)) {
    const auto text = edit->text().trimmed().toStdString();
    if (std::holds_alternative<std::string>(s.default_value())) s.set(c, text);
    else s.set(c, fovea::parse_setting(s, text));
  }
}

fovea::TrainConfig NewRunDialog::config() const {
  auto c = fovea::recommended_train_config();
  for (const auto& f : fields_) applyField(f, c);
  return c;
}

void NewRunDialog::setConfig(const fovea::TrainConfig& config) {
  for (const auto& f : fields_) {
    const auto v = f.setting->get(config);
    if (auto* box = qobject_cast<QCheckBox*>(f.editor)) box->setChecked(std::get<bool>(v));
    else if (auto* spin = qobject_cast<QSpinBox*>(f.editor)) spin->setValue(int(std::get<std::int64_t>(v)));
    else if (auto* combo = qobject_cast<QComboBox*>(f.editor)) combo->setCurrentText(QString::fromStdString(std::get<std::string>(v)));
    else if (auto* edit = qobject_cast<QLineEdit*>(f.editor)) edit->setText(QString::fromStdString(fovea::format_setting(v)));
  }
  updateApplicable();
}

bool NewRunDialog::setValue(const QString& name, const QVariant& v) {
  auto* w = findChild<QWidget*>(name);
  if (!w) return false;
  if (auto* b = qobject_cast<QSpinBox*>(w)) b->setValue(v.toInt());
  else if (auto* c = qobject_cast<QCheckBox*>(w)) c->setChecked(v.toBool());
  else if (auto* x = qobject_cast<QComboBox*>(w)) x->setCurrentText(v.toString());
  else if (auto* e = qobject_cast<QLineEdit*>(w)) e->setText(v.toString());
  else return false;
  return true;
}

QVariant NewRunDialog::value(const QString& name) const {
  auto* w = findChild<QWidget*>(name);
  if (auto* b = qobject_cast<QSpinBox*>(w)) return b->value();
  if (auto* c = qobject_cast<QCheckBox*>(w)) return c->isChecked();
  if (auto* x = qobject_cast<QComboBox*>(w)) return x->currentText();
  if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text();
  return {};
}

QStringList NewRunDialog::settingKeys() const {
  QStringList out;
  for (const auto& f : fields_) out << QString::fromLatin1(f.setting->key);
  return out;
}

void NewRunDialog::updateApplicable() {
  // Each setting's own test of when it applies (core/train/train_settings.cpp), on the fields as
  // they stand; a field being typed keeps its last good value.
  auto c = fovea::recommended_train_config();
  for (const auto& f : fields_) {
    try {
      applyField(f, c);
    } catch (const std::exception&) {
    }
  }
  for (const auto& f : fields_) f.editor->setEnabled(f.setting->applies(c));
  updatePlan();
}

void NewRunDialog::accept() {
  try {
    const auto c = config();
    check_new_run(c);
    error_->hide();
    auto remembered = fovea::to_json(c);
    remembered.erase("out");  // every run gets a folder of its own
    QSettings().setValue(kLastConfigKey, QString::fromStdString(remembered.dump()));
    QDialog::accept();
  } catch (const std::exception& e) {
    error_->setText(in_field_names(user_text(e)));
    error_->show();
  }
}

}  // namespace fovea::ui
