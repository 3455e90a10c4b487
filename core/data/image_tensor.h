#pragma once
/// Conversion between RgbImage and the float tensors the encoder takes.
#include <vector>

#include "core/data/image.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

/// Bilinear resize (no-op copy when the size already matches).
RgbImage resize_image(const RgbImage& image, int width, int height);

/// (B, 3, size, size) floats in [0, 1], each image resized to size x size.
torch::Tensor images_to_tensor(const std::vector<const RgbImage*>& images, std::int64_t size);

}  // namespace fovea
