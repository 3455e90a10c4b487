#pragma once
/// PNG file bytes of an image (zlib), for the sample images a training run writes.
#include <cstdint>
#include <vector>

#include "core/data/image.h"

namespace fovea {

/// An 8-bit RGB PNG of `image`; throws std::invalid_argument for an empty image.
std::vector<std::uint8_t> encode_png(const RgbImage& image);

}  // namespace fovea
