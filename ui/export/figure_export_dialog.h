#pragma once
/// Asks how an exported figure is sized before its file is chosen: single or double column or a
/// custom width, panels per row, the PNG resolution, and whether p(word) goes under each word;
/// shows the figure's size as the choices change and refuses values out of range, saying why.
#include <QDialog>

#include <functional>

#include "ui/export/export_settings.h"

class QCheckBox;
class QLabel;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace fovea::ui {

class FigureExportDialog : public QDialog {
  Q_OBJECT
 public:
  /// `preview` describes the figure these settings make ("2 columns × 9 rows, 17.8 × 43.0 cm,
  /// 2102 × 5079 px at 300 dpi"), or says why it cannot be made; none: no preview.
  using Preview = std::function<QString(const ExportSettings&)>;
  explicit FigureExportDialog(const ExportSettings& settings, Preview preview = {}, QWidget* parent = nullptr);
  ExportSettings settings() const;
  /// Why the settings cannot be used (a width or resolution out of range); empty when they can.
  QString problem() const;
  QString previewText() const;
  void accept() override;

 private:
  void updatePreview();
  Preview preview_;
  QSpinBox* columns_ = nullptr;          ///< panels per row; 0: as many as fit
  QLabel* size_ = nullptr;               ///< the preview: the figure's size in cm and pixels
  QLabel* error_ = nullptr;              ///< problem(), shown while there is one
  QComboBox* width_ = nullptr;           ///< single column, double column or custom
  QDoubleSpinBox* custom_cm_ = nullptr;  ///< the custom width, in cm
  QSpinBox* dpi_ = nullptr;              ///< PNG resolution
  QCheckBox* probability_ = nullptr;     ///< p(word) under each word
};

}  // namespace fovea::ui
