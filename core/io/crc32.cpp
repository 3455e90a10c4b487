#include "core/io/crc32.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <vector>

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

bool crc32_of_file(const std::string& path, std::uint32_t& crc, std::uint64_t& size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::vector<char> buffer(1 << 22);
  crc = 0;
  size = 0;
  while (in) {
    in.read(buffer.data(), std::streamsize(buffer.size()));
    const auto n = in.gcount();
    if (n <= 0) break;
    crc = crc32_update(crc, buffer.data(), std::size_t(n));
    size += std::uint64_t(n);
  }
  return !in.bad();
}

std::string content_digest(std::uint32_t crc, std::uint64_t size) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "crc32=%08lx bytes=%llu", static_cast<unsigned long>(crc), static_cast<unsigned long long>(size));
  return buf;
}

}  // namespace fovea
