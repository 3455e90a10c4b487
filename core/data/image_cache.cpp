#include "core/data/image_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/data/image_io.h"
#include "core/render/heatmap.h"

namespace fovea {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'F', 'O', 'V', 'E', 'A', 'I', 'M', 'C'};
constexpr std::uint32_t kVersion = 1;

std::string default_cache_dir() {
  if (const char* f = std::getenv("FOVEA_CACHE_DIR"); f && *f) return f;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "fovea").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "fovea").string();
  return (fs::temp_directory_path() / "fovea-cache").string();
}

std::string hex(std::size_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016zx", v);
  return buf;
}

}  // namespace

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
  bool built = false;
  const std::uint8_t* data = nullptr;  ///< first pixel byte, inside the mapping
  void* map = nullptr;
  std::size_t map_len = 0;

  ~Impl() {
    if (map) munmap(map, map_len);
  }

  /// Maps the file; false when it is missing, not a cache, or for another source / size.
  bool map_file(const std::string& expected_source, int expected_size) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_size < 20) {
      ::close(fd);
      return false;
    }
    map_len = std::size_t(st.st_size);
    map = mmap(nullptr, map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) {
      map = nullptr;
      return false;
    }
    const auto* bytes = static_cast<const std::uint8_t*>(map);
    std::uint32_t version = 0;
    std::uint64_t header_len = 0;
    std::memcpy(&version, bytes + 8, 4);
    std::memcpy(&header_len, bytes + 12, 8);
    if (std::memcmp(bytes, kMagic, 8) != 0 || version != kVersion || 20 + header_len > map_len) return unmap();
    nlohmann::json header;
    try {
      header = nlohmann::json::parse(bytes + 20, bytes + 20 + header_len);
      if (header.at("source") != expected_source || header.at("image_size") != expected_size) return unmap();
      size = expected_size;
      kept = header.at("kept").get<std::vector<std::size_t>>();
      skipped = header.at("skipped").get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception&) {
      return unmap();
    }
    const std::size_t pixels = kept.size() * std::size_t(size) * std::size_t(size) * 3;
    if (20 + header_len + pixels != map_len) return unmap();  // cut short: rebuild
    data = bytes + 20 + header_len;
    return true;
  }

  bool unmap() {
    if (map) munmap(map, map_len);
    map = nullptr;
    data = nullptr;
    return false;
  }

  void build(const std::vector<CaptionedImage>& images, const std::string& source, const ImageCacheOptions& o,
             const std::function<void(const std::string&)>& message) {
    if (message) message("caching " + std::to_string(images.size()) + " images at " + std::to_string(o.image_size) + " px into " + path);
    fs::create_directories(fs::path(path).parent_path());
    const auto tmp = path + ".tmp" + std::to_string(::getpid());
    const auto tmp_pixels = tmp + ".pixels";  // streamed: a large split never sits in memory
    std::ofstream pixels(tmp_pixels, std::ios::binary | std::ios::trunc);
    kept.clear();
    skipped.clear();
    for (std::size_t i = 0; i < images.size(); ++i) {
      RgbImage img;
      try {
        img = read_image(images[i].path);
      } catch (const std::exception& e) {
        if (!o.skip_bad_images) {
          throw std::runtime_error(e.what());
        }
        skipped.push_back(images[i].path);
        continue;
      }
      const auto small = resize_bilinear(img, o.image_size, o.image_size);
      pixels.write(reinterpret_cast<const char*>(small.pixels.data()), std::streamsize(small.pixels.size()));
      kept.push_back(i);
      if (message && (i + 1) % 1000 == 0) message("cached " + std::to_string(i + 1) + " of " + std::to_string(images.size()));
    }
    pixels.close();
    const std::string header =
        nlohmann::json({{"source", source}, {"image_size", o.image_size}, {"kept", kept}, {"skipped", skipped}}).dump();
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      const std::uint64_t header_len = header.size();
      out.write(kMagic, 8);
      out.write(reinterpret_cast<const char*>(&kVersion), 4);
      out.write(reinterpret_cast<const char*>(&header_len), 8);
      out << header;
      std::ifstream in(tmp_pixels, std::ios::binary);
      if (!kept.empty()) out << in.rdbuf();
      if (!out.flush()) throw std::runtime_error(tmp + ": cannot write the image cache");
    }
    fs::remove(tmp_pixels);
    fs::rename(tmp, path);
    built = true;
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
  d.path = (fs::path(dir) / ("images-" + hex(std::hash<std::string>{}(source)) + "-" + std::to_string(options.image_size) + ".bin")).string();
  if (d.map_file(source, options.image_size)) return cache;
  try {
    d.build(images, source, options, message);
  } catch (...) {
    std::error_code ec;  // leave no half-written temporary files behind
    fs::remove(d.path + ".tmp" + std::to_string(::getpid()) + ".pixels", ec);
    fs::remove(d.path + ".tmp" + std::to_string(::getpid()), ec);
    throw;
  }
  if (!d.map_file(source, options.image_size)) throw std::runtime_error(d.path + ": the image cache just written does not read back");
  d.built = true;
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
  const std::size_t bytes = std::size_t(impl_->size) * std::size_t(impl_->size) * 3;
  RgbImage img(impl_->size, impl_->size);
  std::memcpy(img.pixels.data(), impl_->data + i * bytes, bytes);
  return img;
}

}  // namespace fovea
