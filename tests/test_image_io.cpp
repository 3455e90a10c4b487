// Reading image files: what is not a regular file is refused without being opened for a blocking
// read, files cut short are refused in every format (the JPEG decoder alone would fill the missing
// part with grey), and a header claiming more pixels than allowed is refused before decoding.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>

#include "core/data/image_header.h"
#include "core/data/image_io.h"
#include "tests/test_support.h"

using namespace fovea;
namespace fs = std::filesystem;

namespace {

#define FOVEA_REQUIRE_IMAGE_IO() \
  if (!image_io_available()) GTEST_SKIP() << "built without OpenCV: no image files"

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

/// A noisy 64x64 image: its JPEG is several kilobytes, most of them image data.
RgbImage noise() {
  RgbImage img(64, 64);
  std::uint32_t x = 12345;
  for (auto& p : img.pixels) p = std::uint8_t((x = x * 1103515245u + 12345u) >> 24);
  return img;
}

/// A PNG of 1x1 pixel whose header then claims width x height (its checksum fixed).
std::string png_claiming(const test::TempDir& dir, std::uint32_t width, std::uint32_t height) {
  write_png(dir / "one.png", RgbImage(1, 1));
  auto bytes = read_bytes(dir / "one.png");
  for (int i = 0; i < 4; ++i) bytes[16 + i] = char(width >> (24 - 8 * i)), bytes[20 + i] = char(height >> (24 - 8 * i));
  const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()) + 12, 17);  // over "IHDR" and its 13 bytes
  for (int i = 0; i < 4; ++i) bytes[29 + i] = char(crc >> (24 - 8 * i));
  const auto path = dir / "claims.png";
  write_bytes(path, bytes);
  return path;
}

}  // namespace

TEST(ImageIo, ANamedPipeIsRefusedNotWaitedOn) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("fifo");
  const auto fifo = dir / "pipe.png";
  std::string message;
  {
    test::NamedPipe pipe(fifo);
    message = test::error_message([&] { read_image(fifo); });
  }
  EXPECT_EQ(message, fifo + ": is not a regular file (a named pipe, device or socket), expected an image file");
  EXPECT_EQ(test::error_message([&] { read_image("/dev/null"); }),
            "/dev/null: is not a regular file (a named pipe, device or socket), expected an image file");
  EXPECT_EQ(test::error_message([&] { read_image(dir.path.string()); }), dir.path.string() + ": is a folder, expected an image file");
}

TEST(ImageIo, ATruncatedJpegIsRefusedEvenWhenItsThumbnailIsComplete) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("cut-jpeg");
  write_jpeg(dir / "whole.jpg", noise());
  const auto whole = read_bytes(dir / "whole.jpg");
  ASSERT_GT(whole.size(), 3000u);
  EXPECT_EQ(read_image(dir / "whole.jpg").width, 64);
  write_bytes(dir / "padded.jpg", whole + std::string(16, '\0'));  // bytes after the end marker: harmless
  EXPECT_EQ(read_image(dir / "padded.jpg").width, 64);

  write_bytes(dir / "cut.jpg", whole.substr(0, 2000));  // head -c 2000
  auto message = test::error_message([&] { read_image(dir / "cut.jpg"); });
  EXPECT_EQ(message.rfind(dir / "cut.jpg" + ": truncated JPEG (", 0), 0u) << message;

  // An APP1 segment holding a complete small JPEG (as an EXIF thumbnail does), its end marker
  // included: the outer image cut short is still refused.
  const std::string thumbnail = whole.substr(0, 20) + "\xFF\xD9";
  std::string app1 = "\xFF\xE1";
  app1 += char((thumbnail.size() + 2) >> 8), app1 += char((thumbnail.size() + 2) & 0xFF);
  const std::string with_thumbnail = whole.substr(0, 2) + app1 + thumbnail + whole.substr(2);
  write_bytes(dir / "thumb.jpg", with_thumbnail);
  EXPECT_EQ(read_image(dir / "thumb.jpg").width, 64);
  write_bytes(dir / "thumb-cut.jpg", with_thumbnail.substr(0, with_thumbnail.size() / 2));
  message = test::error_message([&] { read_image(dir / "thumb-cut.jpg"); });
  EXPECT_NE(message.find("truncated JPEG"), std::string::npos) << message;
}

TEST(ImageIo, ATruncatedPngIsRefused) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("cut-png");
  write_png(dir / "whole.png", noise());
  const auto whole = read_bytes(dir / "whole.png");
  write_bytes(dir / "cut.png", whole.substr(0, whole.size() - 12));  // only IEND missing
  const auto message = test::error_message([&] { read_image(dir / "cut.png"); });
  EXPECT_EQ(message.rfind(dir / "cut.png" + ": truncated PNG (", 0), 0u) << message;
  write_bytes(dir / "empty.png", "");
  EXPECT_EQ(test::error_message([&] { read_image(dir / "empty.png"); }), dir / "empty.png" + ": empty file, expected an image");
}

TEST(ImageIo, ATruncatedBmpIsRefused) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("cut-bmp");
  // A 2x2 24-bit BMP: a 54-byte header, then two rows of 2 pixels padded to 8 bytes.
  std::string bmp(54 + 16, '\0');
  const auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bmp[at + i] = char(v >> (8 * i));
  };
  bmp[0] = 'B', bmp[1] = 'M';
  put32(2, std::uint32_t(bmp.size())), put32(10, 54), put32(14, 40), put32(18, 2), put32(22, 2);
  bmp[26] = 1, bmp[28] = 24;
  put32(34, 16);
  for (std::size_t i = 54; i < bmp.size(); ++i) bmp[i] = char(200);
  write_bytes(dir / "whole.bmp", bmp);
  EXPECT_EQ(read_image(dir / "whole.bmp").width, 2);
  write_bytes(dir / "cut.bmp", bmp.substr(0, 60));
  EXPECT_EQ(test::error_message([&] { read_image(dir / "cut.bmp"); }),
            dir / "cut.bmp" + ": truncated BMP (its header gives 70 bytes, the file has 60; the file is cut short or damaged)");
}

TEST(ImageIo, AHeaderClaimingTooManyPixelsIsRefusedBeforeDecoding) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("png-bomb");
  // Decoding this 1x1-pixel file would fail on its missing data ("not a readable image"); the
  // limit, checked on the header first, names the size the file claims.
  const auto claims = png_claiming(dir, 2000, 1000);
  EXPECT_EQ(test::error_message([&] { read_image(claims, 1'000'000); }),
            claims + ": image of 2000x1000 pixels is larger than the limit of 1000000 pixels");
  const auto huge = png_claiming(dir, 32000, 32000);  // 3 GB decoded; under OpenCV's own 2^30-pixel limit
  EXPECT_EQ(test::error_message([&] { read_image(huge); }),
            huge + ": image of 32000x32000 pixels is larger than the limit of 100000000 pixels");
  const auto bigger = png_claiming(dir, 60000, 60000);
  EXPECT_EQ(test::error_message([&] { read_image(bigger); }),
            bigger + ": image of 60000x60000 pixels is larger than the limit of 100000000 pixels");
  write_jpeg(dir / "j.jpg", noise());
  EXPECT_EQ(test::error_message([&] { read_image(dir / "j.jpg", 1000); }),
            dir / "j.jpg" + ": image of 64x64 pixels is larger than the limit of 1000 pixels");
}

TEST(ImageHeader, ReadsTheSizeOfPngJpegAndBmp) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("header");
  RgbImage img(48, 20, 7);
  for (const char* name : {"a.png", "a.jpg"}) {
    const std::string path = dir / name;
    if (fs::path(path).extension() == ".png") write_png(path, img);
    else write_jpeg(path, img);
    const auto bytes = read_bytes(path);
    const auto h = inspect_image(path, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    EXPECT_EQ(h.width, 48) << name;
    EXPECT_EQ(h.height, 20) << name;
  }
  const std::string unknown = "GIF89a and more";
  EXPECT_EQ(inspect_image("x.gif", reinterpret_cast<const std::uint8_t*>(unknown.data()), unknown.size()).format, "");
}
