#pragma once
/// Reader for the Fashion-MNIST idx files (gzip-compressed) shipped by Debian's
/// `dataset-fashion-mnist` package.
#include <cstdint>
#include <string>
#include <vector>

namespace fovea {

/// Where Debian installs Fashion-MNIST.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
/// Where the idx files are read from: $FOVEA_FASHION_MNIST when set, else kFashionMnistDir.
std::string fashion_mnist_dir();

/// The ten Fashion-MNIST classes as caption nouns (one token each).
const std::vector<std::string>& fashion_class_nouns();

/// A set of 28x28 grayscale items and their class labels.
struct FashionMnist {
  int rows = 28;
  int cols = 28;
  std::vector<std::uint8_t> pixels;  ///< count * rows * cols
  std::vector<std::uint8_t> labels;  ///< count
  std::size_t size() const { return labels.size(); }
  const std::uint8_t* item(std::size_t i) const { return pixels.data() + i * std::size_t(rows) * cols; }
};

/// Reads an idx3 image file and an idx1 label file (both .gz, or plain).
/// Throws std::runtime_error naming the file and the fault (missing, not gzip/idx, wrong magic,
/// truncated, corrupt, counts that disagree, labels out of range).
FashionMnist read_fashion_mnist(const std::string& images_path, const std::string& labels_path);

/// Reads the "train" (60k) or "test" (10k) split from `dir` (default: Debian's location).
FashionMnist load_fashion_mnist_split(const std::string& split, const std::string& dir = fashion_mnist_dir());

}  // namespace fovea
