#include "core/render/png_encoder.h"

#include <zlib.h>

#include <stdexcept>
#include <string>

namespace fovea {
namespace {

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(std::uint8_t(v >> 24));
  out.push_back(std::uint8_t(v >> 16));
  out.push_back(std::uint8_t(v >> 8));
  out.push_back(std::uint8_t(v));
}

void put_chunk(std::vector<std::uint8_t>& out, const char* type, const std::vector<std::uint8_t>& data) {
  put_u32(out, std::uint32_t(data.size()));
  const std::size_t type_at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  const uLong crc = crc32(0L, out.data() + type_at, uInt(4 + data.size()));
  put_u32(out, std::uint32_t(crc));
}

}  // namespace

std::vector<std::uint8_t> deflate_bytes(const std::uint8_t* data, std::size_t size) {
  uLongf bound = compressBound(uLong(size));
  std::vector<std::uint8_t> out(bound);
  if (compress2(out.data(), &bound, data, uLong(size), 6) != Z_OK) throw std::runtime_error("zlib compression failed");
  out.resize(bound);
  return out;
}

std::vector<std::uint8_t> encode_png(const RgbImage& image) {
  if (image.width <= 0 || image.height <= 0) throw std::invalid_argument("encode_png: empty image");
  std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<std::uint8_t> ihdr;
  put_u32(ihdr, std::uint32_t(image.width));
  put_u32(ihdr, std::uint32_t(image.height));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8 bits, RGB, deflate, filter 0, no interlace
  put_chunk(out, "IHDR", ihdr);
  const std::size_t row = std::size_t(image.width) * 3;
  std::vector<std::uint8_t> raw;
  raw.reserve((row + 1) * image.height);
  for (int y = 0; y < image.height; ++y) {
    raw.push_back(0);  // filter type None
    const auto* p = image.at(0, y);
    raw.insert(raw.end(), p, p + row);
  }
  put_chunk(out, "IDAT", deflate_bytes(raw.data(), raw.size()));
  put_chunk(out, "IEND", {});
  return out;
}

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += table[v & 63];
  }
  if (i < bytes.size()) {
    std::uint32_t v = bytes[i] << 16;
    if (i + 1 < bytes.size()) v |= bytes[i + 1] << 8;
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace fovea
