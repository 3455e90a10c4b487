#include "core/data/image_tensor.h"

#include <algorithm>
#include <stdexcept>

namespace fovea {

RgbImage resize_image(const RgbImage& src, int width, int height) {
  if (src.empty() || src.width <= 0 || src.height <= 0) throw std::invalid_argument("cannot resize an empty image");
  if (src.width == width && src.height == height) return src;
  RgbImage dst(width, height);
  const float sx = float(src.width) / width, sy = float(src.height) / height;
  // Area-averaging when shrinking a lot would be nicer; bilinear on a pre-sampled grid is
  // enough for the encoder's input and keeps this free of OpenCV.
  for (int y = 0; y < height; ++y) {
    const float fy = std::clamp((y + 0.5f) * sy - 0.5f, 0.0f, float(src.height - 1));
    const int y0 = int(fy), y1 = std::min(y0 + 1, src.height - 1);
    const float wy = fy - y0;
    for (int x = 0; x < width; ++x) {
      const float fx = std::clamp((x + 0.5f) * sx - 0.5f, 0.0f, float(src.width - 1));
      const int x0 = int(fx), x1 = std::min(x0 + 1, src.width - 1);
      const float wx = fx - x0;
      const auto *p00 = src.at(x0, y0), *p01 = src.at(x1, y0), *p10 = src.at(x0, y1), *p11 = src.at(x1, y1);
      auto* d = dst.at(x, y);
      for (int c = 0; c < 3; ++c) {
        const float top = p00[c] * (1 - wx) + p01[c] * wx, bot = p10[c] * (1 - wx) + p11[c] * wx;
        d[c] = std::uint8_t(std::clamp(top * (1 - wy) + bot * wy + 0.5f, 0.0f, 255.0f));
      }
    }
  }
  return dst;
}

torch::Tensor images_to_tensor(const std::vector<const RgbImage*>& images, std::int64_t size) {
  auto out = torch::empty({std::int64_t(images.size()), 3, size, size});
  for (std::size_t i = 0; i < images.size(); ++i) {
    const RgbImage resized = resize_image(*images[i], int(size), int(size));
    auto hwc = torch::from_blob(const_cast<std::uint8_t*>(resized.pixels.data()), {size, size, 3}, torch::kUInt8);
    out[std::int64_t(i)] = hwc.permute({2, 0, 1}).to(torch::kFloat32).div(255.0);
  }
  return out;
}

}  // namespace fovea
