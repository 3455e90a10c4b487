#include "core/data/image_io.h"

#include <filesystem>
#include <stdexcept>

#include "core/io/atomic_file.h"
#include <cstring>
#include <vector>

#ifdef FOVEA_WITH_OPENCV
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace fovea {

#ifdef FOVEA_WITH_OPENCV

bool image_io_available() { return true; }

RgbImage read_image(const std::string& path, long long max_pixels) {
  namespace fs = std::filesystem;
  if (!fs::exists(path)) throw std::runtime_error(path + ": file not found");
  if (fs::is_directory(path)) throw std::runtime_error(path + ": is a folder, expected an image file");
  // OpenCV checks the size in the header before it decodes (at most 2^30 pixels), so a huge image
  // cannot exhaust memory; `max_pixels` is checked once decoded.
  cv::Mat img;
  try {
    img = cv::imread(path, cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) {
    // e.err is OpenCV's reason alone; e.what() adds its source file and line, over two lines.
    if (e.err.find("CV_IO_MAX_IMAGE_PIXELS") != std::string::npos) {
      throw std::runtime_error(path + ": image too large to decode (its header gives more than 2^30 pixels)");
    }
    throw std::runtime_error(path + ": cannot decode image (" + e.err + ")");
  }
  if (img.empty()) throw std::runtime_error(path + ": not a readable image (unknown format or corrupt data)");
  if (static_cast<long long>(img.cols) * img.rows > max_pixels) {
    throw std::runtime_error(path + ": image of " + std::to_string(img.cols) + "x" + std::to_string(img.rows) +
                             " pixels is larger than the limit of " + std::to_string(max_pixels) + " pixels");
  }
  cv::Mat rgb;
  cv::cvtColor(img, rgb, cv::COLOR_BGR2RGB);
  RgbImage out(rgb.cols, rgb.rows);
  for (int y = 0; y < rgb.rows; ++y) std::memcpy(out.at(0, y), rgb.ptr(y), std::size_t(rgb.cols) * 3);
  return out;
}

namespace {

/// Encodes `image` as `extension` (".png", ".jpg") and writes it through a temporary file.
void write_encoded(const std::string& path, const RgbImage& image, const char* extension, const std::vector<int>& params) {
  if (image.empty()) throw std::invalid_argument(path + ": refusing to write an empty image");
  cv::Mat rgb(image.height, image.width, CV_8UC3, const_cast<std::uint8_t*>(image.pixels.data()));
  cv::Mat bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  std::vector<uchar> buf;
  if (!cv::imencode(extension, bgr, buf, params)) throw std::runtime_error(path + ": " + extension + " encoding failed");
  write_file_atomically(path, std::string(buf.begin(), buf.end()));
}

}  // namespace

void write_png(const std::string& path, const RgbImage& image) { write_encoded(path, image, ".png", {}); }

void write_jpeg(const std::string& path, const RgbImage& image, int quality) {
  write_encoded(path, image, ".jpg", {cv::IMWRITE_JPEG_QUALITY, quality});
}

#else

bool image_io_available() { return false; }
RgbImage read_image(const std::string& path, long long) {
  throw std::runtime_error(path + ": this build of Fovea has no image file support (built without OpenCV)");
}
void write_png(const std::string& path, const RgbImage&) {
  throw std::runtime_error(path + ": this build of Fovea has no image file support (built without OpenCV)");
}
void write_jpeg(const std::string& path, const RgbImage&, int) {
  throw std::runtime_error(path + ": this build of Fovea has no image file support (built without OpenCV)");
}

#endif

}  // namespace fovea
