#include "core/render/png_encoder.h"

#include <zlib.h>

#include <stdexcept>
#include <string>

namespace fovea {
namespace {

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(std::uint8_t(v >> shift));
}

/// Length, type, data and the CRC-32 of type and data.
void put_chunk(std::vector<std::uint8_t>& out, const char* type, const std::vector<std::uint8_t>& data) {
  put_u32(out, std::uint32_t(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put_u32(out, std::uint32_t(crc32(0L, out.data() + start, uInt(out.size() - start))));
}

}  // namespace

std::vector<std::uint8_t> encode_png(const RgbImage& image) {
  if (image.width <= 0 || image.height <= 0 || image.pixels.size() != std::size_t(image.width) * image.height * 3) {
    throw std::invalid_argument("encode_png: an empty image (" + std::to_string(image.width) + "x" +
                                std::to_string(image.height) + ")");
  }
  // Each row: filter type 0 (none), then its RGB bytes; the whole deflated as one zlib stream.
  const std::size_t row = std::size_t(image.width) * 3;
  std::vector<std::uint8_t> raw;
  raw.reserve((row + 1) * std::size_t(image.height));
  for (int y = 0; y < image.height; ++y) {
    raw.push_back(0);
    const auto* first = image.pixels.data() + std::size_t(y) * row;
    raw.insert(raw.end(), first, first + row);
  }
  uLongf packed_size = compressBound(uLong(raw.size()));
  std::vector<std::uint8_t> packed(packed_size);
  if (compress2(packed.data(), &packed_size, raw.data(), uLong(raw.size()), 6) != Z_OK) {
    throw std::runtime_error("encode_png: zlib could not compress the image");
  }
  packed.resize(packed_size);

  std::vector<std::uint8_t> header;  // IHDR: width, height, 8 bits, RGB, deflate, no filter set, not interlaced
  put_u32(header, std::uint32_t(image.width));
  put_u32(header, std::uint32_t(image.height));
  header.insert(header.end(), {8, 2, 0, 0, 0});
  std::vector<std::uint8_t> png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  put_chunk(png, "IHDR", header);
  put_chunk(png, "IDAT", packed);
  put_chunk(png, "IEND", {});
  return png;
}

}  // namespace fovea
