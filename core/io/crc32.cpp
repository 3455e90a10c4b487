#include "core/io/crc32.h"

#include <cstdio>

#include <algorithm>
#include <zlib.h>

namespace fovea {

std::uint32_t crc32_update(std::uint32_t crc, const void* bytes, std::size_t n) {
  uLong c = crc;
  const auto* p = static_cast<const Bytef*>(bytes);
  while (n > 0) {  // zlib takes uInt lengths
    const uInt chunk = uInt(std::min<std::size_t>(n, 1u << 30));
    c = ::crc32(c, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return std::uint32_t(c);
}

std::string content_digest(std::uint32_t crc, std::uint64_t size) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "crc32=%08lx bytes=%llu", static_cast<unsigned long>(crc), static_cast<unsigned long long>(size));
  return buf;
}

}  // namespace fovea
