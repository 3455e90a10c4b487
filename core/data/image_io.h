#pragma once
/// Reading and writing image files (OpenCV). Grayscale and alpha images are converted to RGB.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/image.h"

namespace fovea {

/// The most pixels an image may have, wherever it comes from (a file, an array from Python).
constexpr long long kMaxImagePixels = 100'000'000LL;

/// Throws std::runtime_error "WHAT: image of WxH pixels is larger than the limit of N pixels" when
/// a width x height image has more than `max_pixels`.
void check_image_size(const std::string& what, long long width, long long height, long long max_pixels = kMaxImagePixels);

/// Throws std::runtime_error naming the file when it is missing, not a regular file (a named
/// pipe is refused, never opened for a blocking read), unreadable, cut short, not an image, or
/// larger than `max_pixels` (PNG, JPEG and BMP: checked from the header, before decoding).
RgbImage read_image(const std::string& path, long long max_pixels = kMaxImagePixels);

/// Writes a PNG through a temporary file and a rename.
void write_png(const std::string& path, const RgbImage& image);
/// Writes a JPEG of `quality` (0-100) through a temporary file and a rename.
void write_jpeg(const std::string& path, const RgbImage& image, int quality = 92);

/// The image as JPEG file bytes of `quality` (0-100); empty in a build without image file support.
std::vector<std::uint8_t> encode_jpeg(const RgbImage& image, int quality = 85);

/// Whether this build can read and write image files.
bool image_io_available();

}  // namespace fovea
