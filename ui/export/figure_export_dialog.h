#pragma once
/// Asks how an exported figure is sized before its file is chosen: single or double column or a
/// custom width, the PNG resolution, and whether p(word) goes under each word.
#include <QDialog>

#include "ui/export/export_settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace fovea::ui {

class FigureExportDialog : public QDialog {
  Q_OBJECT
 public:
  explicit FigureExportDialog(const ExportSettings& settings, QWidget* parent = nullptr);
  ExportSettings settings() const;

 private:
  QComboBox* width_ = nullptr;
  QDoubleSpinBox* custom_cm_ = nullptr;
  QSpinBox* dpi_ = nullptr;
  QCheckBox* probability_ = nullptr;
};

}  // namespace fovea::ui
