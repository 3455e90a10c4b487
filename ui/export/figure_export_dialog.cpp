#include "ui/export/figure_export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace fovea::ui {

namespace {
// What the figure writers accept (core/render/figure.h): 1 to 40 inches wide, 72 to 1200 dpi.
constexpr double kMinCm = 2.54, kMaxCm = 101.6;
constexpr int kMinDpi = 72, kMaxDpi = 1200;
}  // namespace

FigureExportDialog::FigureExportDialog(const ExportSettings& s, Preview preview, QWidget* parent)
    : QDialog(parent), preview_(std::move(preview)) {
  setWindowTitle(tr("Export Figure"));
  width_ = new QComboBox;
  width_->addItem(tr("Single column (8.5 cm)"), QStringLiteral("column"));
  width_->addItem(tr("Double column (17.8 cm)"), QStringLiteral("double"));
  width_->addItem(tr("Custom width"), QString());
  custom_cm_ = new QDoubleSpinBox;
  custom_cm_->setRange(0.1, 1000);  // typed values are kept as typed and refused by name, not clamped
  custom_cm_->setDecimals(1);
  custom_cm_->setSuffix(tr(" cm"));
  custom_cm_->setValue(12);
  const int preset = width_->findData(s.figure_width);
  if (preset >= 0) {
    width_->setCurrentIndex(preset);
  } else {
    width_->setCurrentIndex(2);
    const auto m = QRegularExpression(QStringLiteral("^([0-9.]+)cm$")).match(s.figure_width);
    if (m.hasMatch()) custom_cm_->setValue(m.captured(1).toDouble());
  }
  custom_cm_->setEnabled(width_->currentIndex() == 2);
  connect(width_, &QComboBox::currentIndexChanged, this, [this](int i) { custom_cm_->setEnabled(i == 2); });
  auto* width_row = new QHBoxLayout;
  width_row->addWidget(width_, 1);
  width_row->addWidget(custom_cm_);

  dpi_ = new QSpinBox;
  dpi_->setRange(1, 100000);
  dpi_->setSingleStep(50);
  dpi_->setSuffix(tr(" dpi"));
  dpi_->setValue(s.png_dpi);
  dpi_->setToolTip(tr("Pixels per inch of PNG figures and chart exports; PDF and SVG are vector"));
  probability_ = new QCheckBox(tr("p(word) under each word"));
  probability_->setChecked(s.show_probability);
  columns_ = new QSpinBox;
  columns_->setRange(0, 64);
  columns_->setSpecialValueText(tr("as many as fit"));
  columns_->setValue(s.columns);
  size_ = new QLabel;
  size_->setWordWrap(true);
  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c03030"));
  error_->hide();

  auto* form = new QFormLayout;
  form->addRow(tr("Width:"), width_row);
  form->addRow(tr("Panels per row:"), columns_);
  form->addRow(tr("PNG resolution:"), dpi_);
  form->addRow(QString(), probability_);
  form->addRow(tr("Size:"), size_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Choose File…"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(error_);
  layout->addWidget(buttons);
  for (auto* spin : {custom_cm_}) connect(spin, &QDoubleSpinBox::valueChanged, this, &FigureExportDialog::updatePreview);
  for (auto* spin : {dpi_, columns_}) connect(spin, &QSpinBox::valueChanged, this, &FigureExportDialog::updatePreview);
  connect(width_, &QComboBox::currentIndexChanged, this, &FigureExportDialog::updatePreview);
  connect(probability_, &QCheckBox::toggled, this, &FigureExportDialog::updatePreview);
  updatePreview();
}

QString FigureExportDialog::problem() const {
  if (width_->currentData().toString().isEmpty() && (custom_cm_->value() < kMinCm || custom_cm_->value() > kMaxCm)) {
    return tr("The width must be from %1 to %2 cm, not %3 cm.").arg(kMinCm).arg(kMaxCm).arg(custom_cm_->value());
  }
  if (dpi_->value() < kMinDpi || dpi_->value() > kMaxDpi) {
    return tr("The PNG resolution must be from %1 to %2 dpi, not %3 dpi.").arg(kMinDpi).arg(kMaxDpi).arg(dpi_->value());
  }
  return {};
}

QString FigureExportDialog::previewText() const { return size_->text(); }

void FigureExportDialog::updatePreview() {
  const QString why = problem();
  error_->setText(why);
  error_->setVisible(!why.isEmpty());
  size_->setText(!why.isEmpty() || !preview_ ? QString() : preview_(settings()));
}

void FigureExportDialog::accept() {
  updatePreview();
  if (!problem().isEmpty()) return;  // said under the fields; the dialog stays open
  QDialog::accept();
}

ExportSettings FigureExportDialog::settings() const {
  ExportSettings s;
  const QString preset = width_->currentData().toString();
  s.figure_width = preset.isEmpty() ? QString::number(custom_cm_->value(), 'f', 1) + QStringLiteral("cm") : preset;
  s.png_dpi = dpi_->value();
  s.show_probability = probability_->isChecked();
  s.columns = columns_->value();
  return s;
}

}  // namespace fovea::ui
