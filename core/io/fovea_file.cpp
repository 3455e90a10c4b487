#include "core/io/fovea_file.h"

#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/io/atomic_file.h"
#include "core/io/checkpoint_header.h"

namespace fovea {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'F', 'O', 'V', 'E', 'A', 'C', 'K', 'P'};
constexpr std::uint32_t kVersion = 1;

template <typename T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // little-endian hosts only (x86_64, aarch64)
  out.append(b, sizeof(T));
}

template <typename T>
T get(const std::string& in, std::size_t& pos) {
  T v;
  std::memcpy(&v, in.data() + pos, sizeof(T));
  pos += sizeof(T);
  return v;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) { fovea_file_error(path, what); }

void check_is_file(const std::string& path) {
  if (!fs::exists(path)) fail(path, "file not found");
  if (fs::is_directory(path)) fail(path, "is a folder, expected a checkpoint file");
  // A device or a pipe (/dev/zero) would be read without end.
  if (!fs::is_regular_file(path)) fail(path, "is not a regular file, expected a checkpoint file");
}

constexpr std::size_t kFixed = sizeof(kMagic) + 4 + 8;  // magic, version, header length

/// Checks the magic and version at the start of `bytes` (at least kFixed of them, or the whole
/// file when it is shorter) and returns the header's length.
std::uint64_t header_length(const std::string& path, const std::string& bytes) {
  if (bytes.empty()) fail(path, "empty file, expected a Fovea checkpoint or encoder file");
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    fail(path, "not a Fovea model file (neither a checkpoint nor an encoder file)");
  }
  if (bytes.size() < kFixed) fail(path, "truncated: the file ends inside the header");
  std::size_t pos = sizeof(kMagic);
  const auto version = get<std::uint32_t>(bytes, pos);
  if (version != kVersion) {
    fail(path, "checkpoint format version " + std::to_string(version) + " is not supported (expected " +
                   std::to_string(kVersion) + ")");
  }
  return get<std::uint64_t>(bytes, pos);
}

/// Checks that a file of `size` bytes holds the header, the weights' length, the weights and the
/// checksum; `left` bytes follow the header's length field.
void check_lengths(const std::string& path, std::uint64_t header_len, std::uint64_t left,
                   const std::function<std::uint64_t()>& read_blob_len) {
  if (header_len > left) {
    fail(path, "truncated: header of " + std::to_string(header_len) + " bytes but only " + std::to_string(left) +
                   " bytes left");
  }
  left -= header_len;
  if (left < 8) fail(path, "truncated: the file ends before the weights");
  const auto blob_len = read_blob_len();
  left -= 8;
  if (blob_len > left || left - blob_len < 4) {
    fail(path, "truncated: weights of " + std::to_string(blob_len) + " bytes plus checksum expected, " +
                   std::to_string(left) + " bytes left (was the file cut short while copying?)");
  }
  if (left - blob_len > 4) fail(path, std::to_string(left - blob_len - 4) + " unexpected bytes after the checksum");
}

/// The whole file, once its first bytes are a checkpoint's: any other file is named at once rather
/// than read whole first (a large one took seconds and gigabytes).
std::string read_whole_file(const std::string& path) {
  check_is_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading");
  std::string bytes(kFixed, '\0');
  in.read(bytes.data(), std::streamsize(kFixed));
  bytes.resize(std::size_t(in.gcount()));
  header_length(path, bytes);
  std::ostringstream rest;
  rest << in.rdbuf();
  bytes += rest.str();
  return bytes;
}

nlohmann::json parse_header(const std::string& path, const std::string& header_text) {
  try {
    return nlohmann::json::parse(header_text);
  } catch (const nlohmann::json::exception& e) {
    fail(path, std::string("corrupt header JSON: ") + e.what());
  }
}

struct Parsed {
  nlohmann::json header;
  std::string archive;
};

}  // namespace

[[noreturn]] void fovea_file_error(const std::string& path, const std::string& what) {
  throw CheckpointError(path + ": " + what);
}

namespace {

Parsed parse(const std::string& path, const std::string& bytes) {
  const auto header_len = header_length(path, bytes);
  std::size_t pos = kFixed;
  std::uint64_t blob_len = 0;
  check_lengths(path, header_len, bytes.size() - pos, [&] {
    std::size_t at = pos + header_len;
    return blob_len = get<std::uint64_t>(bytes, at);
  });
  Parsed p;
  const std::string header_text = bytes.substr(pos, header_len);
  pos += header_len + 8;
  p.archive = bytes.substr(pos, blob_len);
  pos += blob_len;
  const auto stored_crc = get<std::uint32_t>(bytes, pos);
  const auto crc = crc32(crc32(0L, reinterpret_cast<const Bytef*>(header_text.data()), uInt(header_text.size())),
                         reinterpret_cast<const Bytef*>(p.archive.data()), uInt(p.archive.size()));
  if (crc != stored_crc) fail(path, "corrupt: checksum mismatch (the file was modified or damaged)");
  p.header = parse_header(path, header_text);
  return p;
}

}  // namespace

void write_fovea_file(const std::string& path, const nlohmann::json& header, torch::serialize::OutputArchive& archive) {
  std::ostringstream blob_stream;
  archive.save_to(blob_stream);
  const std::string blob = blob_stream.str();
  const std::string header_text = header.dump();
  std::string bytes(kMagic, sizeof(kMagic));
  put<std::uint32_t>(bytes, kVersion);
  put<std::uint64_t>(bytes, header_text.size());
  bytes += header_text;
  put<std::uint64_t>(bytes, blob.size());
  bytes += blob;
  const auto crc = crc32(crc32(0L, reinterpret_cast<const Bytef*>(header_text.data()), uInt(header_text.size())),
                         reinterpret_cast<const Bytef*>(blob.data()), uInt(blob.size()));
  put<std::uint32_t>(bytes, std::uint32_t(crc));
  write_file_atomically(path, bytes);
}

nlohmann::json read_checkpoint_header(const std::string& path) {
  // Reads the fixed fields and the header only: the file's lengths are checked, the checksum over
  // the weights is left to the load that reads them.
  check_is_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading");
  const std::uint64_t size = fs::file_size(path);
  auto read = [&](std::size_t n) {
    std::string bytes(n, '\0');
    in.read(bytes.data(), std::streamsize(n));
    bytes.resize(std::size_t(in.gcount()));
    return bytes;
  };
  const auto header_len = header_length(path, read(kFixed));
  std::string header_text;
  check_lengths(path, header_len, size - kFixed, [&] {
    header_text = read(header_len);
    const auto field = read(8);
    std::size_t at = 0;
    return get<std::uint64_t>(field, at);
  });
  return parse_header(path, header_text);
}

FoveaFile read_fovea_file(const std::string& path) {
  auto p = parse(path, read_whole_file(path));
  return {std::move(p.header), std::move(p.archive)};
}

}  // namespace fovea
