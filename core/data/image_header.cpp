#include "core/data/image_header.h"

#include <cstring>
#include <stdexcept>

namespace fovea {

namespace {

std::uint32_t be16(const std::uint8_t* p) { return std::uint32_t(p[0]) << 8 | p[1]; }
std::uint32_t be32(const std::uint8_t* p) { return be16(p) << 16 | be16(p + 2); }
std::int32_t le32(const std::uint8_t* p) {
  return std::int32_t(std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24);
}

[[noreturn]] void cut_short(const std::string& path, const std::string& format, const std::string& what) {
  throw std::runtime_error(path + ": truncated " + format + " (" + what + "; the file is cut short or damaged)");
}

/// PNG: the IHDR chunk first (width, height), then chunks up to IEND.
ImageHeader inspect_png(const std::string& path, const std::uint8_t* b, std::size_t n) {
  if (n < 33 || std::memcmp(b + 12, "IHDR", 4) != 0 || be32(b + 8) != 13) cut_short(path, "PNG", "no complete IHDR header");
  ImageHeader h{"PNG", be32(b + 16), be32(b + 20)};
  std::size_t pos = 8;
  while (true) {
    if (pos + 12 > n) cut_short(path, "PNG", "it ends before its IEND chunk");
    const std::size_t length = be32(b + pos);
    if (length > n - pos - 12) cut_short(path, "PNG", "it ends inside a chunk, before its IEND chunk");
    if (std::memcmp(b + pos + 4, "IEND", 4) == 0) return h;
    pos += 12 + length;
  }
}

/// JPEG: marker segments up to the end-of-image marker (FFD9); each scan's entropy-coded data
/// runs to the next marker (0xFF followed by a byte that is neither 0, a fill 0xFF nor a restart).
ImageHeader inspect_jpeg(const std::string& path, const std::uint8_t* b, std::size_t n) {
  ImageHeader h{"JPEG", 0, 0};
  std::size_t pos = 2;
  while (true) {
    while (pos < n && b[pos] != 0xFF) ++pos;  // bytes between segments: tolerated, as decoders do
    while (pos < n && b[pos] == 0xFF) ++pos;  // fill bytes
    if (pos >= n) cut_short(path, "JPEG", "it ends before its end-of-image marker");
    const std::uint8_t marker = b[pos++];
    if (marker == 0xD9) {
      if (h.width == 0 || h.height == 0) throw std::runtime_error(path + ": JPEG without a frame header (no image size)");
      return h;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;  // no length
    if (pos + 2 > n) cut_short(path, "JPEG", "it ends inside a marker segment");
    const std::size_t length = be16(b + pos);
    if (length < 2) throw std::runtime_error(path + ": malformed JPEG (a marker segment of length " + std::to_string(length) + ")");
    if (pos + length > n) cut_short(path, "JPEG", "it ends inside a marker segment");
    const bool frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (frame && length >= 7) h.height = be16(b + pos + 3), h.width = be16(b + pos + 5);
    pos += length;
    if (marker != 0xDA) continue;
    while (true) {  // the scan's entropy-coded data
      const void* ff = pos < n ? std::memchr(b + pos, 0xFF, n - pos) : nullptr;
      if (!ff) cut_short(path, "JPEG", "it ends inside the image data, before its end-of-image marker");
      pos = std::size_t(static_cast<const std::uint8_t*>(ff) - b);
      if (pos + 1 >= n) cut_short(path, "JPEG", "it ends inside the image data, before its end-of-image marker");
      const std::uint8_t next = b[pos + 1];
      if (next == 0x00 || next == 0xFF || (next >= 0xD0 && next <= 0xD7)) {
        pos += 1;
        continue;
      }
      break;  // a marker: the loop above reads it
    }
  }
}

}  // namespace

ImageHeader inspect_image(const std::string& path, const std::uint8_t* b, std::size_t n) {
  static const std::uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (n >= 8 && std::memcmp(b, png, 8) == 0) return inspect_png(path, b, n);
  if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return inspect_jpeg(path, b, n);
  if (n >= 26 && b[0] == 'B' && b[1] == 'M') {
    const std::uint32_t declared = std::uint32_t(le32(b + 2));  // the file's size, as its header gives it
    if (declared > n) cut_short(path, "BMP", "its header gives " + std::to_string(declared) + " bytes, the file has " + std::to_string(n));
    if (le32(b + 14) == 12) return ImageHeader{"BMP", (long long)(b[18] | b[19] << 8), (long long)(b[20] | b[21] << 8)};
    const long long w = le32(b + 18), h = le32(b + 22);  // h < 0: rows stored top-down
    return ImageHeader{"BMP", w < 0 ? -w : w, h < 0 ? -h : h};
  }
  if (n >= 12 && std::memcmp(b, "RIFF", 4) == 0 && std::memcmp(b + 8, "WEBP", 4) == 0) {
    const std::uint64_t declared = std::uint64_t(std::uint32_t(le32(b + 4))) + 8;
    if (declared > n) cut_short(path, "WebP", "its header gives " + std::to_string(declared) + " bytes, the file has " + std::to_string(n));
    return ImageHeader{"WebP", 0, 0};  // the size: left to the decoder (within OpenCV's own limit)
  }
  return {};
}

}  // namespace fovea
