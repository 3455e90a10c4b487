#pragma once
/// From the export settings to the figure: the options `fovea::write_figure` takes, and the size
/// the figure will have, said before it is written.
#include <QString>

#include "core/decode/caption_result.h"
#include "core/render/figure.h"
#include "ui/export/export_settings.h"

namespace fovea::ui {

/// The figure options of `settings` with the view's overlay `style`; throws std::invalid_argument
/// for a width that does not parse.
fovea::FigureOptions figure_options(const ExportSettings& settings, const fovea::OverlayStyle& style);

/// "2 columns × 9 rows · 17.8 × 43.0 cm · 2102 × 5079 px (PNG at 300 dpi)", or why the figure
/// cannot be made with these settings.
QString describe_figure(const ExportSettings& settings, const fovea::RgbImage& image, const fovea::CaptionResult& caption,
                        const fovea::OverlayStyle& style);

}  // namespace fovea::ui
