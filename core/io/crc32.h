#pragma once
/// CRC-32 (zlib's) of byte ranges of any length: what the image and annotation caches check each
/// entry with, and what keys a cache to an encoder's weights.
#include <cstddef>
#include <cstdint>
#include <string>

namespace fovea {

/// `crc` extended by `n` bytes (start from 0). zlib takes at most 4 GiB a call; this takes any size.
std::uint32_t crc32_update(std::uint32_t crc, const void* bytes, std::size_t n);

/// The CRC-32 of `n` bytes.
inline std::uint32_t crc32_of(const void* bytes, std::size_t n) { return crc32_update(0, bytes, n); }

/// The CRC-32 and size of the bytes of the plain file `path`; false when it cannot be read or is
/// not a plain file (a named pipe is never opened: reading one would wait for a writer).
bool crc32_of_file(const std::string& path, std::uint32_t& crc, std::uint64_t& size);

/// "crc32=1a2b3c4d bytes=N": a file's content in a line, as caches are keyed and `fovea info`
/// names a model's backbone (the same for the file and the bytes a model file embeds).
std::string content_digest(std::uint32_t crc, std::uint64_t size);

}  // namespace fovea
