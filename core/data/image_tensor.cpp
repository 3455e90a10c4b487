#include "core/data/image_tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace fovea {
namespace {

/// (1, 3, H, W) floats in [0, 255], a copy of `image`.
torch::Tensor to_chw(const RgbImage& image) {
  auto hwc = torch::from_blob(const_cast<std::uint8_t*>(image.pixels.data()), {image.height, image.width, 3}, torch::kUInt8);
  return hwc.permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat32);
}

}  // namespace

torch::Tensor resize_images(const torch::Tensor& nchw, std::int64_t height, std::int64_t width) {
  if (nchw.dim() != 4 || height <= 0 || width <= 0) throw std::invalid_argument("resize_images: expected (N, C, H, W) and a size");
  if (nchw.size(2) == height && nchw.size(3) == width) return nchw;
  const bool shrinking = height < nchw.size(2) || width < nchw.size(3);
  namespace F = torch::nn::functional;
  return F::interpolate(nchw, F::InterpolateFuncOptions()
                                  .size(std::vector<std::int64_t>{height, width})
                                  .mode(torch::kBilinear)
                                  .align_corners(false)
                                  .antialias(shrinking));
}

RgbImage resize_image(const RgbImage& src, int width, int height) {
  if (src.empty() || src.width <= 0 || src.height <= 0) throw std::invalid_argument("cannot resize an empty image");
  if (width <= 0 || height <= 0) throw std::invalid_argument("cannot resize an image to an empty size");
  if (src.width == width && src.height == height) return src;
  torch::NoGradGuard no_grad;
  const auto hwc = resize_images(to_chw(src), height, width)[0].round().clamp(0, 255).to(torch::kUInt8).permute({1, 2, 0}).contiguous();
  RgbImage dst(width, height);
  std::memcpy(dst.pixels.data(), hwc.data_ptr<std::uint8_t>(), dst.pixels.size());
  return dst;
}

RgbImage shrink_to(const RgbImage& image, int max_side) {
  const int side = std::max(image.width, image.height);
  if (max_side <= 0 || side <= max_side) return image;
  const double k = double(max_side) / side;
  return resize_image(image, std::max(1, int(std::lround(image.width * k))), std::max(1, int(std::lround(image.height * k))));
}

torch::Tensor images_to_tensor(const std::vector<const RgbImage*>& images, std::int64_t size) {
  torch::NoGradGuard no_grad;
  auto out = torch::empty({std::int64_t(images.size()), 3, size, size});
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (images[i]->empty()) throw std::invalid_argument("cannot encode an empty image");
    out[std::int64_t(i)] = resize_images(to_chw(*images[i]), size, size)[0].div(255.0);
  }
  return out;
}

}  // namespace fovea
