#pragma once
/// Conversion between RgbImage and the float tensors the encoder takes, and the one image resize
/// Fovea uses (encoder inputs, cached dataset images, the built-in scenes' items).
#include <vector>

#include "core/data/image.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

/// Bilinear resize of (N, C, H, W) floats with pixel centres aligned (align_corners=false),
/// antialiased when shrinking (as torchvision resizes); LibTorch's interpolate.
torch::Tensor resize_images(const torch::Tensor& nchw, std::int64_t height, std::int64_t width);

/// resize_images for one RgbImage (a copy when the size already matches).
RgbImage resize_image(const RgbImage& image, int width, int height);

/// `image` shrunk, aspect kept, so its longer side is at most `max_side` px (a copy when it fits).
RgbImage shrink_to(const RgbImage& image, int max_side);

/// (B, 3, size, size) floats in [0, 1], each image resized to size x size.
torch::Tensor images_to_tensor(const std::vector<const RgbImage*>& images, std::int64_t size);

}  // namespace fovea
