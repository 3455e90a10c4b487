#include "core/render/text_raster.h"

#include <stdexcept>

#ifdef FOVEA_WITH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace fovea {

#ifdef FOVEA_WITH_OPENCV
namespace {
// FONT_HERSHEY_SIMPLEX at scale 1 has a cap height of about 22 px.
double scale_for(float size_px) { return size_px / 22.0; }
int thickness_for(float size_px, bool bold) { return std::max(1, int(size_px / 14.0f + 0.5f)) + (bold ? 1 : 0); }
}  // namespace

int text_width(const std::string& text, float size_px, bool bold) {
  int base = 0;
  return cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale_for(size_px), thickness_for(size_px, bold), &base).width;
}

void draw_text(RgbImage& image, const std::string& text, int x, int baseline_y, float size_px,
               std::array<std::uint8_t, 3> colour, bool centred, bool bold) {
  cv::Mat mat(image.height, image.width, CV_8UC3, image.pixels.data());
  if (centred) x -= text_width(text, size_px, bold) / 2;
  // The Mat shares the RGB buffer, so the colour is given in RGB order.
  cv::putText(mat, text, cv::Point(x, baseline_y), cv::FONT_HERSHEY_SIMPLEX, scale_for(size_px),
              cv::Scalar(colour[0], colour[1], colour[2]), thickness_for(size_px, bold), cv::LINE_AA);
}
#else
int text_width(const std::string&, float, bool) { throw std::runtime_error("text rendering needs a build with OpenCV"); }
void draw_text(RgbImage&, const std::string&, int, int, float, std::array<std::uint8_t, 3>, bool, bool) {
  throw std::runtime_error("text rendering needs a build with OpenCV");
}
#endif

}  // namespace fovea
