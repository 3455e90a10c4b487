#pragma once
/// What an image file's bytes say before any decoding: its format, the dimensions its header
/// declares, and whether the file is complete. read_image() checks these first, so a file whose
/// header claims billions of pixels is refused without allocating them, and a file cut short
/// (a JPEG without its end-of-image marker, a PNG without its IEND chunk) is refused even where
/// the decoder would fill the missing part with grey and carry on.
#include <cstddef>
#include <cstdint>
#include <string>

namespace fovea {

struct ImageHeader {
  std::string format;               ///< "PNG", "JPEG", "BMP", "WebP", or empty when not one of these
  long long width = 0, height = 0;  ///< from the header (PNG, JPEG, BMP); 0 when not read
};

/// Reads the header of the image held in `bytes` (the whole file). Throws std::runtime_error
/// naming `path` when a PNG, JPEG, BMP or WebP file is cut short, or a JPEG's structure is
/// malformed. Other formats (TIFF, ...) are left to the decoder (format empty).
ImageHeader inspect_image(const std::string& path, const std::uint8_t* bytes, std::size_t size);

}  // namespace fovea
