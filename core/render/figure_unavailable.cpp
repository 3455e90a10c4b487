// core/render/figure.h in a build without cairo and pango (-DFOVEA_WITH_CAIRO=OFF, e.g. a
// headless GPU build): every figure function says so.
#include <stdexcept>

#include "core/render/figure.h"

namespace fovea {
namespace {

[[noreturn]] void unavailable() {
  throw std::runtime_error("figures need cairo and pango, and this build has neither (built with -DFOVEA_WITH_CAIRO=OFF)");
}

}  // namespace

double parse_figure_width(const std::string&) { unavailable(); }
int FigureLayout::pixel_width() const { unavailable(); }
int FigureLayout::pixel_height() const { unavailable(); }
FigureLayout layout_figure(const RgbImage&, const CaptionResult&, const FigureOptions&) { unavailable(); }
std::vector<std::uint8_t> figure_png(const FigureLayout&) { unavailable(); }
std::string figure_svg(const FigureLayout&) { unavailable(); }
std::vector<std::uint8_t> figure_pdf(const FigureLayout&) { unavailable(); }
void write_figure(const std::string&, const RgbImage&, const CaptionResult&, const FigureOptions&) { unavailable(); }
RgbImage animation_frame(const RgbImage&, const CaptionResult&, std::size_t, const OverlayStyle&, int) { unavailable(); }
std::vector<std::string> write_animation_frames(const std::string&, const RgbImage&, const CaptionResult&,
                                                const OverlayStyle&, int) {
  unavailable();
}

}  // namespace fovea
