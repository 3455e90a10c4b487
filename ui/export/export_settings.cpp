#include "ui/export/export_settings.h"

#include <QSettings>

#include <algorithm>

namespace fovea::ui {

ExportSettings ExportSettings::load() {
  QSettings settings;
  ExportSettings s;
  s.figure_width = settings.value(QStringLiteral("export/figure_width"), s.figure_width).toString();
  s.png_dpi = std::clamp(settings.value(QStringLiteral("export/png_dpi"), s.png_dpi).toInt(), 72, 1200);
  s.show_probability = settings.value(QStringLiteral("export/show_probability"), s.show_probability).toBool();
  s.columns = std::clamp(settings.value(QStringLiteral("export/columns"), s.columns).toInt(), 0, 64);
  return s;
}

void ExportSettings::save() const {
  QSettings settings;
  settings.setValue(QStringLiteral("export/figure_width"), figure_width);
  settings.setValue(QStringLiteral("export/png_dpi"), png_dpi);
  settings.setValue(QStringLiteral("export/show_probability"), show_probability);
  settings.setValue(QStringLiteral("export/columns"), columns);
}

double pngScale(int dpi) { return std::clamp(dpi / 96.0, 1.0, 12.5); }

}  // namespace fovea::ui
