#pragma once
/// PNG encoding to memory with zlib only (no OpenCV), for figures embedded in SVG and PDF.
#include <cstdint>
#include <vector>

#include "core/data/image.h"

namespace fovea {

/// An 8-bit RGB PNG of `image` (no interlacing, filter 0).
std::vector<std::uint8_t> encode_png(const RgbImage& image);

/// zlib (RFC 1950) compression of raw bytes, as PDF's FlateDecode expects.
std::vector<std::uint8_t> deflate_bytes(const std::uint8_t* data, std::size_t size);

/// Standard base64 (RFC 4648) with padding.
std::string base64(const std::vector<std::uint8_t>& bytes);

}  // namespace fovea
