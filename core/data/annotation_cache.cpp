#include "core/data/annotation_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/data/cache_preamble.h"
#include "core/data/image_cache.h"

#include "core/io/crc32.h"

namespace fovea {

namespace fs = std::filesystem;

namespace {

constexpr CacheFormat kAnnotationFormat = {{'F', 'O', 'V', 'E', 'A', 'A', 'N', 'C'}, 2};

[[noreturn]] void annotation_write_failed(const std::string& path, int error) { cache_write_failed(path, "annotation", error); }

/// Images without pixels: get() is the source's get_without_image().
class CaptionsOnly : public SceneSource {
 public:
  explicit CaptionsOnly(std::shared_ptr<const SceneSource> source) : source_(std::move(source)) {}
  std::size_t size() const override { return source_->size(); }
  Scene get(std::size_t index) const override { return source_->get_without_image(index); }
  std::string describe() const override { return source_->describe(); }
  std::vector<std::string> colour_names() const override { return source_->colour_names(); }
  std::string content_key() const override { return source_->content_key(); }
  std::uint32_t image_crc(std::size_t index) const override { return source_->image_crc(index); }
  std::size_t repair_damaged_images() const override { return source_->repair_damaged_images(); }

 private:
  std::shared_ptr<const SceneSource> source_;
};

}  // namespace

struct AnnotationCache::Impl {
  std::string path, partial;  ///< the final name and the name while it is built
  std::string header;
  std::size_t count = 0;
  std::int64_t cells = 0, dim = 0;
  bool complete = false;
  std::uint64_t table_offset = 0, input_offset = 0, data_offset = 0;
  void* map = nullptr;
  std::size_t map_len = 0;
  int fd = -1;  ///< open for writing (entries, repairs); -1 when the file is read-only
  Repair repair;
  std::function<void(const std::string&)> message;
  mutable std::mutex mutex;  ///< repairs
  std::size_t repaired = 0;

  ~Impl() { close(); }
  void close() {
    if (map) munmap(map, map_len);
    if (fd >= 0) ::close(fd);
    map = nullptr;
    fd = -1;
  }

  std::size_t entry_bytes() const { return std::size_t(cells) * std::size_t(dim) * 2; }
  std::uint64_t file_bytes() const { return data_offset + count * entry_bytes(); }
  const std::uint8_t* bytes() const { return static_cast<const std::uint8_t*>(map); }
  const std::uint8_t* entry(std::size_t i) const { return bytes() + data_offset + i * entry_bytes(); }
  std::uint32_t stored_crc(std::size_t i) const {
    std::uint32_t c = 0;
    std::memcpy(&c, bytes() + table_offset + 4 * i, 4);
    return c;
  }
  std::uint32_t stored_input(std::size_t i) const {
    std::uint32_t c = 0;
    std::memcpy(&c, bytes() + input_offset + 4 * i, 4);
    return c;
  }
  bool intact(std::size_t i) const { return crc32_of(entry(i), entry_bytes()) == stored_crc(i); }

  /// Opens and maps `file` when it is a cache with this header, the whole length; else false,
  /// with `why` saying what was wrong when the file exists.
  bool attach(const std::string& file, std::string* why = nullptr) {
    close();
    fd = ::open(file.c_str(), O_RDWR);
    if (fd < 0) fd = ::open(file.c_str(), O_RDONLY);  // a read-only cache is read, not repaired
    if (fd < 0) return false;
    struct stat st {};
    if (fstat(fd, &st) != 0) return detach();
    if (std::uint64_t(st.st_size) < kCachePreamble) {
      if (why) *why = "it is cut short (" + std::to_string(st.st_size) + " bytes)";
      return detach();
    }
    if (std::uint64_t(st.st_size) != file_bytes()) {
      if (why) *why = "its length (" + std::to_string(st.st_size) + " bytes) is not that of " + std::to_string(count) +
                      " entries of " + std::to_string(cells) + "x" + std::to_string(dim) + " (" + std::to_string(file_bytes()) + ")";
      return detach();
    }
    map_len = std::size_t(st.st_size);
    map = mmap(nullptr, map_len, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
      map = nullptr;
      return detach();
    }
    const auto preamble = read_cache_preamble(bytes(), kAnnotationFormat);
    const char* wrong = nullptr;
    if (!preamble.magic_matches) wrong = "it is not an annotation cache (its first bytes are damaged)";
    else if (!preamble.version_matches) wrong = "it was written by another version of Fovea";
    else if (preamble.header_len != header.size() || preamble.header_crc != crc32_of(header.data(), header.size()))
      wrong = "its header is damaged (its CRC-32 does not check, or its length is wrong)";
    else if (std::memcmp(bytes() + kCachePreamble, header.data(), header.size()) != 0)
      wrong = "its header is damaged (it names another split or encoder than its file name says)";
    if (wrong != nullptr) {
      if (why) *why = wrong;
      return detach();
    }
    return true;
  }
  bool detach() {
    close();
    return false;
  }

  /// A new partial file: the header, a zero CRC table (no entry in) and room for the entries.
  void create() {
    close();
    fs::create_directories(fs::path(partial).parent_path());
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      if (!out) annotation_write_failed(path, errno);
      write_cache_preamble(out, kAnnotationFormat, header);
      if (!out.flush()) annotation_write_failed(path, errno);
    }
    // The whole length is allocated now, not left sparse: on a full disk a mapped page with no
    // block behind it kills the process (SIGBUS) when read, where this fails with a clear error.
    const int out_fd = ::open(partial.c_str(), O_RDWR);
    if (out_fd < 0) annotation_write_failed(path, errno);
    const int failed = ::posix_fallocate(out_fd, 0, off_t(file_bytes()));
    ::close(out_fd);
    if (failed != 0) {
      std::error_code ec;
      fs::remove(partial, ec);
      annotation_write_failed(path, failed);
    }
    if (!attach(partial)) throw std::runtime_error(partial + ": the annotation cache just created does not read back");
  }

  void put(std::size_t i, const void* data) {
    const std::uint32_t c = crc32_of(data, entry_bytes());
    // The data first, then its CRC-32: an entry cut short by a kill never checks.
    if (fd < 0 || ::pwrite(fd, data, entry_bytes(), off_t(data_offset + i * entry_bytes())) != ssize_t(entry_bytes()) ||
        ::pwrite(fd, &c, 4, off_t(table_offset + 4 * i)) != 4) {
      annotation_write_failed(path, fd < 0 ? EACCES : errno);
    }
  }
  /// After the entry: the CRC-32 of the image it was computed from (a kill before it leaves the
  /// entry to be computed again).
  void put_input(std::size_t i, std::uint32_t input) {
    if (fd < 0 || ::pwrite(fd, &input, 4, off_t(input_offset + 4 * i)) != 4) annotation_write_failed(path, fd < 0 ? EACCES : errno);
  }
};

AnnotationCache::AnnotationCache() : impl_(std::make_unique<Impl>()) {}
AnnotationCache::AnnotationCache(AnnotationCache&&) noexcept = default;
AnnotationCache& AnnotationCache::operator=(AnnotationCache&&) noexcept = default;
AnnotationCache::~AnnotationCache() = default;

namespace {

std::string cache_file(const std::string& key, const std::string& cache_dir) {
  const auto dir = cache_dir.empty() ? default_cache_dir() : cache_dir;
  return (fs::path(dir) / ("annotations-" + cache_name_hex(std::hash<std::string>{}(key)) + ".bin")).string();
}

}  // namespace

std::string AnnotationCache::lock_path(const std::string& key, const std::string& cache_dir) {
  return cache_file(key, cache_dir) + ".lock";
}

AnnotationCache AnnotationCache::open(const std::string& key, std::size_t count, std::int64_t cells, std::int64_t dim,
                                      const std::string& cache_dir, const std::function<void(const std::string&)>& message) {
  if (cells <= 0 || dim <= 0) throw std::invalid_argument("annotation cache: the grid and its depth must be positive");
  AnnotationCache cache;
  auto& d = *cache.impl_;
  d.path = cache_file(key, cache_dir);
  d.partial = d.path + ".partial";
  d.count = count, d.cells = cells, d.dim = dim;
  d.header = nlohmann::json({{"key", key}, {"count", count}, {"cells", cells}, {"dim", dim}, {"dtype", "bf16"}}).dump();
  d.table_offset = kCachePreamble + d.header.size();
  d.input_offset = d.table_offset + 4 * count;
  d.data_offset = d.input_offset + 4 * count;
  std::string why;
  if (d.attach(d.path, &why)) {
    d.complete = true;
    return cache;
  }
  std::error_code ec;
  if (fs::remove(d.path, ec) && message) message(d.path + ": " + why + "; computing it again");
  why.clear();
  if (!d.attach(d.partial, &why)) {
    if (!why.empty() && message) message(d.partial + ": " + why + "; starting it again");
    d.create();
  }
  return cache;
}

std::size_t AnnotationCache::size() const { return impl_->count; }
std::int64_t AnnotationCache::cells() const { return impl_->cells; }
std::int64_t AnnotationCache::dim() const { return impl_->dim; }
bool AnnotationCache::complete() const { return impl_->complete; }
const std::string& AnnotationCache::path() const { return impl_->complete ? impl_->path : impl_->partial; }

std::vector<std::size_t> AnnotationCache::to_compute(const std::vector<std::uint32_t>& inputs) const {
  const auto& d = *impl_;
  if (!inputs.empty() && inputs.size() != d.count) {
    throw std::invalid_argument("annotation cache: " + std::to_string(inputs.size()) + " image checksums for " +
                                std::to_string(d.count) + " entries");
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < d.count; ++i) {
    if ((!d.complete && !d.intact(i)) || (!inputs.empty() && inputs[i] != d.stored_input(i))) out.push_back(i);
  }
  return out;
}

std::vector<std::size_t> AnnotationCache::damaged() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < impl_->count; ++i) {
    if (!impl_->intact(i)) out.push_back(i);
  }
  return out;
}

void AnnotationCache::write(std::size_t i, const torch::Tensor& annotations, std::uint32_t input) {
  auto& d = *impl_;
  if (i >= d.count) throw std::out_of_range("annotation cache: entry " + std::to_string(i) + " of " + std::to_string(d.count));
  TORCH_CHECK(annotations.numel() == d.cells * d.dim, "annotation cache: entry of ", annotations.sizes(), ", expected (",
              d.cells, ", ", d.dim, ")");
  const auto half = annotations.detach().to(torch::kCPU).to(torch::kBFloat16).contiguous();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.put(i, half.data_ptr());
  d.put_input(i, input);
}

bool AnnotationCache::finish() {
  auto& d = *impl_;
  if (d.complete) return true;
  if (!damaged().empty()) return false;
  if (d.fd >= 0 && ::fsync(d.fd) != 0) annotation_write_failed(d.path, errno);
  std::error_code ec;
  fs::rename(d.partial, d.path, ec);  // the mapping stays valid: the same file
  if (ec) throw std::runtime_error(d.path + ": cannot write the annotation cache (" + ec.message() + ")");
  d.complete = true;
  return true;
}

void AnnotationCache::set_repair(Repair repair, std::function<void(const std::string&)> message) {
  impl_->repair = std::move(repair);
  impl_->message = std::move(message);
}

torch::Tensor AnnotationCache::read(const std::vector<std::size_t>& indices) const {
  return read_stored(indices).to(torch::kFloat);
}

torch::Tensor AnnotationCache::read_stored(const std::vector<std::size_t>& indices) const {
  auto& d = *impl_;
  auto out = torch::empty({std::int64_t(indices.size()), d.cells, d.dim}, torch::kBFloat16);
  auto* dst = static_cast<std::uint8_t*>(out.data_ptr());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const auto i = indices[k];
    if (i >= d.count) throw std::out_of_range("annotation cache: entry " + std::to_string(i) + " of " + std::to_string(d.count));
    auto* slot = dst + k * d.entry_bytes();
    std::memcpy(slot, d.entry(i), d.entry_bytes());
    if (crc32_of(slot, d.entry_bytes()) == d.stored_crc(i)) continue;
    const std::string where = path() + ": entry " + std::to_string(i);
    std::lock_guard<std::mutex> lock(d.mutex);
    if (!d.repair) throw std::runtime_error(where + " is damaged (its CRC-32 does not check); delete the file to rebuild it");
    const auto fresh = d.repair(i).detach().to(torch::kCPU).to(torch::kBFloat16).contiguous();
    TORCH_CHECK(fresh.numel() == d.cells * d.dim, "annotation cache: repair of entry ", i, " gave ", fresh.sizes());
    std::memcpy(slot, fresh.data_ptr(), d.entry_bytes());
    bool fixed = true;
    try {
      d.put(i, slot);
    } catch (const std::runtime_error&) {
      fixed = false;
    }
    ++d.repaired;
    if (d.message) d.message(where + " was damaged: computed again" + (fixed ? " and repaired" : " (the cache file is read-only)"));
  }
  return out;
}

std::size_t AnnotationCache::repaired() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->repaired;
}

std::shared_ptr<const SceneSource> captions_only(std::shared_ptr<const SceneSource> source) {
  return std::make_shared<CaptionsOnly>(std::move(source));
}

}  // namespace fovea
