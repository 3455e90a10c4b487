#pragma once
/// How exports are sized, remembered across sessions: the figure's width and labels, and the PNG
/// resolution that figures and chart exports share. Kept under "export/" in QSettings.
#include <QString>

namespace fovea::ui {

struct ExportSettings {
  QString figure_width = QStringLiteral("double");  ///< as `fovea export --width` takes it
  int png_dpi = 300;                                ///< figures' PNG and chart PNGs
  bool show_probability = true;                     ///< p(word) under each word
  int columns = 0;                                  ///< panels per row; 0: as many as fit

  static ExportSettings load();
  void save() const;
};

/// The device pixel ratio a chart PNG at `dpi` is drawn with (the screen's logical 96 dpi is 1).
double pngScale(int dpi);

}  // namespace fovea::ui
