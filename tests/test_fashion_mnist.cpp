// Fashion-MNIST idx reader: real files, and every kind of bad file rejected with its path.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>

#include "core/datasets/fashion_mnist.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

std::string be32(std::uint32_t v) {
  return {char(v >> 24), char((v >> 16) & 255), char((v >> 8) & 255), char(v & 255)};
}

void write_gz(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
  gzclose(f);
}

std::string images_file(std::uint32_t count, std::uint32_t declared) {
  std::string s = be32(2051) + be32(declared) + be32(28) + be32(28);
  for (std::uint32_t i = 0; i < count * 784; ++i) s += char(i % 251);
  return s;
}

std::string labels_file(const std::string& labels) { return be32(2049) + be32(std::uint32_t(labels.size())) + labels; }

}  // namespace

class FashionMnistFiles : public ::testing::Test {
 protected:
  test::TempDir dir{"mnist"};
  std::string images = dir / "images.gz", labels = dir / "labels.gz";
};

TEST_F(FashionMnistFiles, ReadsAWellFormedPair) {
  write_gz(images, images_file(2, 2));
  write_gz(labels, labels_file(std::string{7, 3}));
  auto d = read_fashion_mnist(images, labels);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d.labels[0], 7);
  EXPECT_EQ(d.labels[1], 3);
  EXPECT_EQ(d.item(1)[0], std::uint8_t(784 % 251));
}

TEST_F(FashionMnistFiles, RejectsTruncatedPixelData) {
  write_gz(images, images_file(1, 2));  // header says 2 items, holds 1
  write_gz(labels, labels_file(std::string{1, 2}));
  auto msg = test::error_message([&] { read_fashion_mnist(images, labels); });
  EXPECT_NE(msg.find(images), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST_F(FashionMnistFiles, RejectsACutGzipStream) {
  write_gz(images, images_file(3, 3));
  std::ifstream in(images, std::ios::binary);
  std::string gz((std::istreambuf_iterator<char>(in)), {});
  in.close();
  std::ofstream(images, std::ios::binary | std::ios::trunc).write(gz.data(), long(gz.size() / 2));
  write_gz(labels, labels_file(std::string{1, 2, 3}));
  auto msg = test::error_message([&] { read_fashion_mnist(images, labels); });
  EXPECT_NE(msg.find(images), std::string::npos) << msg;
  EXPECT_TRUE(msg.find("truncated") != std::string::npos || msg.find("corrupt") != std::string::npos) << msg;
}

TEST_F(FashionMnistFiles, RejectsCorruptCompressedBytes) {
  write_gz(images, images_file(3, 3));
  std::fstream f(images, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(40);
  const char junk[16] = {'\x13', '\x37', '\x00', '\xff', '\x42', '\x42', '\x42', '\x42',
                         '\x13', '\x37', '\x00', '\xff', '\x42', '\x42', '\x42', '\x42'};
  f.write(junk, sizeof junk);
  f.close();
  write_gz(labels, labels_file(std::string{1, 2, 3}));
  auto msg = test::error_message([&] { read_fashion_mnist(images, labels); });
  EXPECT_NE(msg.find(images), std::string::npos) << msg;
}

TEST_F(FashionMnistFiles, RejectsWrongMagicMissingFilesAndDisagreeingCounts) {
  write_gz(images, be32(1234) + images_file(1, 1).substr(4));
  write_gz(labels, labels_file(std::string{1}));
  EXPECT_NE(test::error_message([&] { read_fashion_mnist(images, labels); }).find("magic 1234"), std::string::npos);

  write_gz(images, images_file(2, 2));
  write_gz(labels, labels_file(std::string{1, 2, 3}));
  EXPECT_NE(test::error_message([&] { read_fashion_mnist(images, labels); }).find("holds 3 labels"), std::string::npos);

  write_gz(labels, labels_file(std::string{1, 12}));
  EXPECT_NE(test::error_message([&] { read_fashion_mnist(images, labels); }).find("out of range"), std::string::npos);

  auto msg = test::error_message([&] { read_fashion_mnist(dir / "nope.gz", labels); });
  EXPECT_NE(msg.find("nope.gz: file not found"), std::string::npos) << msg;
}

TEST(FashionMnistDebian, TestSplitHasTenThousandLabelledItems) {
  FOVEA_REQUIRE_FASHION_MNIST();
  auto d = load_fashion_mnist_split("test");
  ASSERT_EQ(d.size(), 10000u);
  std::vector<int> per_class(10);
  for (auto l : d.labels) ++per_class[l];
  for (int c = 0; c < 10; ++c) EXPECT_EQ(per_class[std::size_t(c)], 1000) << "class " << c;
}
