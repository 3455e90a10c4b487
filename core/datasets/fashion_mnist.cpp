#include "core/datasets/fashion_mnist.h"
#include <cstdlib>

#include <zlib.h>

#include <filesystem>
#include <memory>
#include <stdexcept>

namespace fovea {

std::string fashion_mnist_dir() {
  const char* dir = std::getenv("FOVEA_FASHION_MNIST");
  return dir != nullptr && *dir != '\0' ? dir : kFashionMnistDir;
}

const std::vector<std::string>& fashion_class_nouns() {
  static const std::vector<std::string> nouns = {"top",   "trousers", "pullover", "dress", "coat",
                                                 "sandal", "shirt",   "sneaker",  "bag",   "boot"};
  return nouns;
}

namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

/// Reads exactly `n` bytes or throws (truncated / corrupt), naming the file.
void read_exact(gzFile file, const std::string& path, void* dst, std::size_t n, const char* what) {
  auto* out = static_cast<char*>(dst);
  std::size_t done = 0;
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
    const int got = gzread(file, out + done, chunk);
    if (got < 0) {
      int errnum = 0;
      const char* msg = gzerror(file, &errnum);
      fail(path, std::string("corrupt gzip data while reading ") + what + " (" + (msg ? msg : "unknown error") + ")");
    }
    if (got == 0) {
      fail(path, std::string("truncated: file ends while reading ") + what + " (expected " + std::to_string(n) +
                     " bytes, got " + std::to_string(done) + ")");
    }
    done += static_cast<std::size_t>(got);
  }
}

std::uint32_t read_be32(gzFile file, const std::string& path, const char* what) {
  unsigned char b[4];
  read_exact(file, path, b, 4, what);
  return (std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) | (std::uint32_t(b[2]) << 8) | b[3];
}

GzFile open(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    fail(path, "file not found (install Debian's dataset-fashion-mnist package, or pass the folder holding the idx files)");
  }
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) fail(path, "cannot open for reading");
  return GzFile(f);
}

void expect_end(gzFile file, const std::string& path) {
  char extra;
  const int got = gzread(file, &extra, 1);
  if (got < 0) fail(path, "corrupt gzip data at the end of the file");
  if (got > 0) fail(path, "unexpected trailing data after the last item");
}

}  // namespace

FashionMnist read_fashion_mnist(const std::string& images_path, const std::string& labels_path) {
  FashionMnist data;
  {
    GzFile f = open(images_path);
    const std::uint32_t magic = read_be32(f.get(), images_path, "the header");
    if (magic != 2051) {
      fail(images_path, "not an idx3 image file (magic " + std::to_string(magic) + ", expected 2051)");
    }
    const std::uint32_t count = read_be32(f.get(), images_path, "the header");
    const std::uint32_t rows = read_be32(f.get(), images_path, "the header");
    const std::uint32_t cols = read_be32(f.get(), images_path, "the header");
    if (rows != 28 || cols != 28) {
      fail(images_path, "expected 28x28 items, got " + std::to_string(rows) + "x" + std::to_string(cols));
    }
    if (count == 0 || count > 1000000) fail(images_path, "implausible item count " + std::to_string(count));
    data.rows = int(rows);
    data.cols = int(cols);
    data.pixels.resize(std::size_t(count) * rows * cols);
    read_exact(f.get(), images_path, data.pixels.data(), data.pixels.size(), "pixel data");
    expect_end(f.get(), images_path);
  }
  {
    GzFile f = open(labels_path);
    const std::uint32_t magic = read_be32(f.get(), labels_path, "the header");
    if (magic != 2049) {
      fail(labels_path, "not an idx1 label file (magic " + std::to_string(magic) + ", expected 2049)");
    }
    const std::uint32_t count = read_be32(f.get(), labels_path, "the header");
    const std::size_t images = data.pixels.size() / (std::size_t(data.rows) * data.cols);
    if (count != images) {
      fail(labels_path, "holds " + std::to_string(count) + " labels but " + images_path + " holds " +
                            std::to_string(images) + " images");
    }
    data.labels.resize(count);
    read_exact(f.get(), labels_path, data.labels.data(), count, "labels");
    expect_end(f.get(), labels_path);
    for (std::size_t i = 0; i < data.labels.size(); ++i) {
      if (data.labels[i] > 9) {
        fail(labels_path, "label " + std::to_string(data.labels[i]) + " of item " + std::to_string(i) +
                              " is out of range 0..9");
      }
    }
  }
  return data;
}

FashionMnist load_fashion_mnist_split(const std::string& split, const std::string& dir) {
  std::string prefix;
  if (split == "train") {
    prefix = "train";
  } else if (split == "test") {
    prefix = "t10k";
  } else {
    throw std::invalid_argument("Fashion-MNIST split must be 'train' or 'test', got '" + split + "'");
  }
  const auto base = std::filesystem::path(dir);
  return read_fashion_mnist((base / (prefix + "-images-idx3-ubyte.gz")).string(),
                            (base / (prefix + "-labels-idx1-ubyte.gz")).string());
}

}  // namespace fovea
