#include "core/data/image_cache.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <mutex>
#include <regex>
#include <thread>
#include <stdexcept>
#include <unordered_map>

#include "core/data/cache_preamble.h"
#include "core/data/image_io.h"
#include "core/data/image_tensor.h"

#include "core/io/crc32.h"

namespace fovea {

namespace fs = std::filesystem;

namespace {

constexpr CacheFormat kImageFormat = {{'F', 'O', 'V', 'E', 'A', 'I', 'M', 'C'}, 3};

[[noreturn]] void write_failed(const std::string& cache, int error) { cache_write_failed(cache, "image", error); }

/// Removes the temporary files (`images-*.bin.tmpPID`, `...tmpPID.pixels`) that processes killed
/// while building a cache left in `dir`, those whose process no longer runs; returns how many.
std::size_t remove_orphaned_temporaries(const std::string& dir) {
  static const std::regex temporary(R"(images-.*\.bin\.tmp([0-9]+)(\.pixels)?)");
  std::size_t removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const auto name = entry.path().filename().string();
    if (!std::regex_match(name, m, temporary)) continue;
    const long pid = std::strtol(m[1].str().c_str(), nullptr, 10);
    const bool alive = pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
    if (!alive && fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

/// An image file as it was when cached: what says whether it changed since.
struct FileIdentity {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint32_t crc = 0;  ///< of the file's bytes
  std::uint32_t unused = 0;
};
static_assert(sizeof(FileIdentity) == 24, "the cache's identity table has 24 bytes an entry");

/// Size and modification time of `path` (false when it cannot be read).
bool stat_identity(const std::string& path, FileIdentity& id) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  id.size = std::uint64_t(st.st_size);
  id.mtime_ns = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return true;
}

/// The CRC-32 of the bytes of `path`; 0 when it cannot be read or is not a plain file.
std::uint32_t file_crc(const std::string& path) {
  std::uint32_t crc = 0;
  std::uint64_t size = 0;
  return crc32_of_file(path, crc, size) ? crc : 0;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* f = std::getenv("FOVEA_CACHE_DIR"); f && *f) return f;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "fovea").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "fovea").string();
  return (fs::temp_directory_path() / "fovea-cache").string();
}

std::string describe_source_file(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  const auto time = fs::last_write_time(path, ec).time_since_epoch().count();
  return fs::absolute(path).lexically_normal().string() + " (" + std::to_string(ec ? 0 : size) + " bytes, t=" +
         std::to_string(ec ? 0 : time) + ")";
}

struct ImageCache::Impl {
  std::string path;
  int size = 0;
  std::vector<std::size_t> kept;
  std::vector<std::string> skipped;
  std::vector<std::string> sources;  ///< the source file of each entry
  bool built = false;
  std::function<void(const std::string&)> message;
  std::uint64_t table_offset = 0, identity_offset = 0, pixel_offset = 0;  ///< in the file
  const std::uint8_t* table = nullptr;  ///< count × u32 CRC-32, inside the mapping
  std::size_t refreshed = 0;
  const std::uint8_t* data = nullptr;   ///< first pixel byte, inside the mapping
  void* map = nullptr;
  std::size_t map_len = 0;
  std::mutex repair_mutex;
  std::unordered_map<std::size_t, RgbImage> repaired;  ///< entries read again from their source

  ~Impl() {
    if (map) munmap(map, map_len);
  }

  std::size_t image_bytes() const { return std::size_t(size) * std::size_t(size) * 3; }

  /// Maps the file; false when it is missing, not a cache, damaged in its header, cut short, or
  /// for another source / size.
  bool map_file(const std::string& expected_source, int expected_size) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_size < std::int64_t(kCachePreamble)) {
      ::close(fd);
      return false;
    }
    map_len = std::size_t(st.st_size);
    map = mmap(nullptr, map_len, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) {
      map = nullptr;
      return false;
    }
    const auto* bytes = static_cast<const std::uint8_t*>(map);
    const auto preamble = read_cache_preamble(bytes, kImageFormat);
    const std::uint64_t header_len = preamble.header_len;
    if (!preamble.magic_matches || !preamble.version_matches || header_len > map_len - kCachePreamble) return unmap();
    if (crc32_of(bytes + kCachePreamble, header_len) != preamble.header_crc) return unmap();
    try {
      const auto header = nlohmann::json::parse(bytes + kCachePreamble, bytes + kCachePreamble + header_len);
      if (header.at("source") != expected_source || header.at("image_size") != expected_size) return unmap();
      size = expected_size;
      kept = header.at("kept").get<std::vector<std::size_t>>();
      skipped = header.at("skipped").get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception&) {
      return unmap();
    }
    table_offset = kCachePreamble + header_len;
    identity_offset = table_offset + 4 * kept.size();
    pixel_offset = identity_offset + sizeof(FileIdentity) * kept.size();
    if (pixel_offset + kept.size() * image_bytes() != map_len) return unmap();  // cut short: rebuild
    table = bytes + table_offset;
    data = bytes + pixel_offset;
    return true;
  }

  bool unmap() {
    if (map) munmap(map, map_len);
    map = nullptr;
    data = table = nullptr;
    return false;
  }

  std::uint32_t stored_crc(std::size_t i) const {
    std::uint32_t c = 0;
    std::memcpy(&c, table + 4 * i, 4);
    return c;
  }

  RgbImage decode(const std::string& file) const {
    const auto img = read_image(file);
    return resize_image(img, size, size);
  }

  void build(const std::vector<CaptionedImage>& images, const std::string& source, const ImageCacheOptions& o) {
    if (message) message("caching " + std::to_string(images.size()) + " images at " + std::to_string(o.image_size) + " px into " + path);
    fs::create_directories(fs::path(path).parent_path());
    const auto tmp = path + ".tmp" + std::to_string(::getpid());
    const auto tmp_pixels = tmp + ".pixels";  // streamed: a large split never sits in memory
    std::ofstream pixels(tmp_pixels, std::ios::binary | std::ios::trunc);
    if (!pixels) write_failed(path, errno);
    kept.clear();
    skipped.clear();
    std::vector<std::uint32_t> crcs;
    std::vector<FileIdentity> identities;
    size = o.image_size;
    // Decoded on every core, a chunk at a time, and written in order.
    const std::size_t workers = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t chunk = 32 * workers;
    for (std::size_t begin = 0; begin < images.size(); begin += chunk) {
      const std::size_t end = std::min(images.size(), begin + chunk);
      std::vector<RgbImage> decoded(end - begin);
      std::vector<FileIdentity> ids(end - begin);
      std::vector<std::string> errors(end - begin);
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < std::min(workers, end - begin); ++t) {
        threads.emplace_back([&, t] {
          for (std::size_t i = begin + t; i < end; i += workers) {
            try {
              stat_identity(images[i].path, ids[i - begin]);
              ids[i - begin].crc = file_crc(images[i].path);
              decoded[i - begin] = decode(images[i].path);
            } catch (const std::exception& e) {
              errors[i - begin] = e.what()[0] != '\0' ? e.what() : images[i].path + ": unreadable";
            }
          }
        });
      }
      for (auto& thread : threads) thread.join();
      for (std::size_t i = begin; i < end; ++i) {
        if (!errors[i - begin].empty()) {
          if (!o.skip_bad_images) throw std::runtime_error(errors[i - begin]);
          skipped.push_back(images[i].path);
          continue;
        }
        const auto& small = decoded[i - begin];
        pixels.write(reinterpret_cast<const char*>(small.pixels.data()), std::streamsize(small.pixels.size()));
        if (!pixels) write_failed(path, errno);
        crcs.push_back(crc32_of(small.pixels.data(), small.pixels.size()));
        identities.push_back(ids[i - begin]);
        kept.push_back(i);
      }
      if (message && end / 1000 > begin / 1000) message("cached " + std::to_string(end) + " of " + std::to_string(images.size()));
    }
    if (!pixels.flush()) write_failed(path, errno);
    pixels.close();
    const std::string header =
        nlohmann::json({{"source", source}, {"image_size", o.image_size}, {"kept", kept}, {"skipped", skipped}}).dump();
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) write_failed(path, errno);
      write_cache_preamble(out, kImageFormat, header);
      out.write(reinterpret_cast<const char*>(crcs.data()), std::streamsize(4 * crcs.size()));
      out.write(reinterpret_cast<const char*>(identities.data()), std::streamsize(sizeof(FileIdentity) * identities.size()));
      std::ifstream in(tmp_pixels, std::ios::binary);
      if (!kept.empty()) out << in.rdbuf();
      if (!out.flush()) write_failed(path, errno);
    }
    // A copy cut short (the disk filled up) must not become the cache.
    const std::uint64_t expected =
        kCachePreamble + header.size() + (4 + sizeof(FileIdentity)) * kept.size() + kept.size() * image_bytes();
    std::error_code ec;
    if (fs::file_size(tmp, ec) != expected) write_failed(path, ec ? ec.value() : ENOSPC);
    fs::remove(tmp_pixels);
    fs::rename(tmp, path, ec);
    if (ec) throw std::runtime_error(path + ": cannot write the image cache (" + ec.message() + ")");
    built = true;
  }

  /// Entry i failed its check: decoded again from its source file and written back (pixels and
  /// checksum), so later runs read it intact.
  RgbImage repair(std::size_t i) {
    std::lock_guard<std::mutex> lock(repair_mutex);
    if (auto it = repaired.find(i); it != repaired.end()) return it->second;
    const std::string entry = path + ": entry " + std::to_string(i) + " (" + sources[i] + ")";
    RgbImage img;
    try {
      img = decode(sources[i]);
    } catch (const std::exception& e) {
      throw std::runtime_error(entry + " is damaged and its source cannot be read (" + e.what() +
                               "); delete the cache file to rebuild it");
    }
    const bool fixed = rewrite(i, img, nullptr);
    if (message) message(entry + " was damaged: read again from its source" + (fixed ? " and repaired" : " (the cache file is read-only)"));
    return repaired.emplace(i, std::move(img)).first->second;
  }

  /// Writes entry i's pixels, their CRC-32 and (when given) its file's identity; false when the
  /// cache file cannot be written.
  bool rewrite(std::size_t i, const RgbImage& img, const FileIdentity* id) const {
    const std::uint32_t c = crc32_of(img.pixels.data(), img.pixels.size());
    const int fd = ::open(path.c_str(), O_WRONLY);
    const bool fixed = fd >= 0 &&
                       ::pwrite(fd, img.pixels.data(), img.pixels.size(), off_t(pixel_offset + i * image_bytes())) ==
                           ssize_t(img.pixels.size()) &&
                       ::pwrite(fd, &c, 4, off_t(table_offset + 4 * i)) == 4 &&
                       (id == nullptr || ::pwrite(fd, id, sizeof *id, off_t(identity_offset + sizeof *id * i)) == ssize_t(sizeof *id));
    if (fd >= 0) ::close(fd);
    return fixed;
  }

  FileIdentity stored_identity(std::size_t i) const {
    FileIdentity id;
    std::memcpy(&id, static_cast<const std::uint8_t*>(map) + identity_offset + sizeof id * i, sizeof id);
    return id;
  }

  /// Entries whose image file changed since they were cached (size or time, then its bytes) read
  /// again and rewritten; a file touched but unchanged only has its time recorded.
  void refresh() {
    std::vector<std::string> changed;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      FileIdentity now;
      const auto was = stored_identity(i);
      if (!stat_identity(sources[i], now) || (now.size == was.size && now.mtime_ns == was.mtime_ns)) continue;
      now.crc = file_crc(sources[i]);
      if (now.crc != was.crc || now.size != was.size) {
        RgbImage img;
        try {
          img = decode(sources[i]);
        } catch (const std::exception& e) {
          throw std::runtime_error(sources[i] + ": changed since it was cached and no longer reads (" + e.what() +
                                   "); mend or restore it");
        }
        if (!rewrite(i, img, &now)) write_failed(path, errno);
        changed.push_back(sources[i]);
      } else if (!rewrite_identity(i, now)) {
        write_failed(path, errno);
      }
    }
    refreshed = changed.size();
    if (!changed.empty() && message) {
      message(path + ": " + std::to_string(changed.size()) + " image(s) changed since they were cached (e.g. " +
              changed.front() + "): read again");
    }
  }

  bool rewrite_identity(std::size_t i, const FileIdentity& id) const {
    const int fd = ::open(path.c_str(), O_WRONLY);
    const bool done = fd >= 0 && ::pwrite(fd, &id, sizeof id, off_t(identity_offset + sizeof id * i)) == ssize_t(sizeof id);
    if (fd >= 0) ::close(fd);
    return done;
  }
};

ImageCache::ImageCache() : impl_(std::make_unique<Impl>()) {}
ImageCache::ImageCache(ImageCache&&) noexcept = default;
ImageCache& ImageCache::operator=(ImageCache&&) noexcept = default;
ImageCache::~ImageCache() = default;

ImageCache ImageCache::open(const std::vector<CaptionedImage>& images, const std::string& source,
                            const ImageCacheOptions& options, const std::function<void(const std::string&)>& message) {
  if (options.image_size <= 0) throw std::invalid_argument("image cache: image size must be positive");
  ImageCache cache;
  auto& d = *cache.impl_;
  const auto dir = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  d.path = (fs::path(dir) / ("images-" + cache_name_hex(std::hash<std::string>{}(source)) + "-" + std::to_string(options.image_size) + ".bin")).string();
  d.message = message;
  for (const auto& img : images) d.sources.push_back(img.path);
  const auto keep_sources = [&d] {  // each entry's source file, for repairs
    std::vector<std::string> kept_sources;
    for (auto k : d.kept) kept_sources.push_back(k < d.sources.size() ? d.sources[k] : std::string());
    d.sources = std::move(kept_sources);
  };
  if (d.map_file(source, options.image_size)) {
    keep_sources();
    d.refresh();
    return cache;
  }
  if (const auto n = remove_orphaned_temporaries(dir); n > 0 && message) {
    message("removed " + std::to_string(n) + " unfinished image cache file(s) from " + dir + " (left by processes that no longer run)");
  }
  try {
    d.build(images, source, options);
  } catch (...) {
    std::error_code ec;  // leave no half-written temporary files behind
    fs::remove(d.path + ".tmp" + std::to_string(::getpid()) + ".pixels", ec);
    fs::remove(d.path + ".tmp" + std::to_string(::getpid()), ec);
    throw;
  }
  if (!d.map_file(source, options.image_size)) {
    std::error_code ec;
    fs::remove(d.path, ec);
    throw std::runtime_error(d.path + ": the image cache just written does not read back (removed; it is built again next time)");
  }
  d.built = true;
  keep_sources();
  if (message && !d.skipped.empty()) message("skipped " + std::to_string(d.skipped.size()) + " unreadable image(s), e.g. " + d.skipped.front());
  return cache;
}

std::size_t ImageCache::size() const { return impl_->kept.size(); }
int ImageCache::image_size() const { return impl_->size; }
const std::vector<std::size_t>& ImageCache::kept() const { return impl_->kept; }
const std::vector<std::string>& ImageCache::skipped() const { return impl_->skipped; }
bool ImageCache::was_built() const { return impl_->built; }
const std::string& ImageCache::path() const { return impl_->path; }

RgbImage ImageCache::image(std::size_t i) const {
  if (i >= size()) throw std::out_of_range("image cache: index " + std::to_string(i) + " of " + std::to_string(size()));
  const std::size_t bytes = impl_->image_bytes();
  RgbImage img(impl_->size, impl_->size);
  std::memcpy(img.pixels.data(), impl_->data + i * bytes, bytes);
  if (crc32_of(img.pixels.data(), bytes) == impl_->stored_crc(i)) return img;
  return impl_->repair(i);
}

std::size_t ImageCache::refreshed() const { return impl_->refreshed; }

std::uint32_t ImageCache::pixels_crc(std::size_t i) const {
  if (i >= size()) throw std::out_of_range("image cache: index " + std::to_string(i) + " of " + std::to_string(size()));
  return impl_->stored_crc(i);
}

std::size_t ImageCache::verify() const {
  std::size_t damaged = 0;
  const std::size_t bytes = impl_->image_bytes();
  for (std::size_t i = 0; i < size(); ++i) {
    if (crc32_of(impl_->data + i * bytes, bytes) == impl_->stored_crc(i)) continue;
    impl_->repair(i);
    ++damaged;
  }
  return damaged;
}

std::size_t ImageCache::repaired() const {
  std::lock_guard<std::mutex> lock(impl_->repair_mutex);
  return impl_->repaired.size();
}

}  // namespace fovea
