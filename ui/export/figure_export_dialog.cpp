#include "ui/export/figure_export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace fovea::ui {

FigureExportDialog::FigureExportDialog(const ExportSettings& s, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Export Figure"));
  width_ = new QComboBox;
  width_->addItem(tr("Single column (8.5 cm)"), QStringLiteral("column"));
  width_->addItem(tr("Double column (17.8 cm)"), QStringLiteral("double"));
  width_->addItem(tr("Custom width"), QString());
  custom_cm_ = new QDoubleSpinBox;
  custom_cm_->setRange(2.54, 101.6);
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
  dpi_->setRange(72, 1200);
  dpi_->setSingleStep(50);
  dpi_->setSuffix(tr(" dpi"));
  dpi_->setValue(s.png_dpi);
  dpi_->setToolTip(tr("Pixels per inch of PNG figures and chart exports; PDF and SVG are vector"));
  probability_ = new QCheckBox(tr("p(word) under each word"));
  probability_->setChecked(s.show_probability);

  auto* form = new QFormLayout;
  form->addRow(tr("Width:"), width_row);
  form->addRow(tr("PNG resolution:"), dpi_);
  form->addRow(QString(), probability_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Choose File…"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(buttons);
}

ExportSettings FigureExportDialog::settings() const {
  ExportSettings s;
  const QString preset = width_->currentData().toString();
  s.figure_width = preset.isEmpty() ? QString::number(custom_cm_->value(), 'f', 1) + QStringLiteral("cm") : preset;
  s.png_dpi = dpi_->value();
  s.show_probability = probability_->isChecked();
  return s;
}

}  // namespace fovea::ui
