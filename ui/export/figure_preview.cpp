#include "ui/export/figure_preview.h"

#include <QCoreApplication>

#include <cmath>
#include <set>

namespace fovea::ui {

fovea::FigureOptions figure_options(const ExportSettings& settings, const fovea::OverlayStyle& style) {
  fovea::FigureOptions options;
  options.style = style;
  options.width_pt = fovea::parse_figure_width(settings.figure_width.toStdString());
  options.dpi = settings.png_dpi;
  options.show_probability = settings.show_probability;
  options.columns = settings.columns;
  return options;
}

QString describe_figure(const ExportSettings& settings, const fovea::RgbImage& image, const fovea::CaptionResult& caption,
                        const fovea::OverlayStyle& style) {
  const auto tr = [](const char* text) { return QCoreApplication::translate("FigurePreview", text); };
  try {
    const auto layout = fovea::layout_figure(image, caption, figure_options(settings, style));
    std::set<long> rows, columns;  // the word panels' positions, to the point
    for (std::size_t i = 1; i < layout.panels.size(); ++i) {
      rows.insert(std::lround(layout.panels[i].y));
      columns.insert(std::lround(layout.panels[i].x));
    }
    constexpr double kCmPerPt = 2.54 / 72;
    return tr("%1 columns × %2 rows · %3 × %4 cm · %5 × %6 px (PNG at %7 dpi)")
        .arg(columns.size())
        .arg(rows.size())
        .arg(layout.width * kCmPerPt, 0, 'f', 1)
        .arg(layout.height * kCmPerPt, 0, 'f', 1)
        .arg(layout.pixel_width())
        .arg(layout.pixel_height())
        .arg(settings.png_dpi);
  } catch (const std::exception& e) {
    return tr("Cannot be made: %1").arg(QString::fromStdString(e.what()));
  }
}

}  // namespace fovea::ui
