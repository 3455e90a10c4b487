#pragma once
/// The opening the studio's and trainer's cache files (images-*.bin, annotations-*.bin) share: an
/// 8-byte magic, the format's version, the JSON header's length and CRC-32, then that header;
/// and how either says it cannot be written.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>

#include "core/io/crc32.h"

namespace fovea {

constexpr std::uint64_t kCachePreamble = 24;  ///< magic, version, header length, header CRC-32

/// A kind of cache file: the magic it opens with and the version of its layout.
struct CacheFormat {
  char magic[8];
  std::uint32_t version;
};

/// Writes the preamble of `header` and the header itself.
inline void write_cache_preamble(std::ostream& out, const CacheFormat& format, const std::string& header) {
  const std::uint64_t header_len = header.size();
  const std::uint32_t header_crc = crc32_of(header.data(), header.size());
  out.write(format.magic, 8);
  out.write(reinterpret_cast<const char*>(&format.version), 4);
  out.write(reinterpret_cast<const char*>(&header_len), 8);
  out.write(reinterpret_cast<const char*>(&header_crc), 4);
  out << header;
}

/// What the first kCachePreamble bytes of a cache file say.
struct CachePreamble {
  bool magic_matches = false;    ///< the file is of the format asked for
  bool version_matches = false;  ///< ... and of its current version
  std::uint64_t header_len = 0;
  std::uint32_t header_crc = 0;
};

inline CachePreamble read_cache_preamble(const std::uint8_t* bytes, const CacheFormat& format) {
  CachePreamble p;
  p.magic_matches = std::memcmp(bytes, format.magic, 8) == 0;
  std::uint32_t version = 0;
  std::memcpy(&version, bytes + 8, 4);
  p.version_matches = version == format.version;
  std::memcpy(&p.header_len, bytes + 12, 8);
  std::memcpy(&p.header_crc, bytes + 20, 4);
  return p;
}

/// Cache `path` (`kind`: "image", "annotation") cannot be written: names the cache (not its
/// temporary file) and the system's reason.
[[noreturn]] inline void cache_write_failed(const std::string& path, const char* kind, int error) {
  throw std::runtime_error(path + ": cannot write the " + kind + " cache (" + std::strerror(error) + ")");
}

/// `v` as 16 hexadecimal digits: the key part of a cache file's name.
inline std::string cache_name_hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace fovea
