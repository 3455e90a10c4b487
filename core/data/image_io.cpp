#include "core/data/image_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/data/image_header.h"
#include "core/io/atomic_file.h"

#ifdef FOVEA_WITH_OPENCV
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace fovea {

void check_image_size(const std::string& what, long long width, long long height, long long max_pixels) {
  if (width * height <= max_pixels) return;
  throw std::runtime_error(what + ": image of " + std::to_string(width) + "x" + std::to_string(height) +
                           " pixels is larger than the limit of " + std::to_string(max_pixels) + " pixels");
}

#ifdef FOVEA_WITH_OPENCV

bool image_io_available() { return true; }

namespace {

/// The bytes of the image file `path`. Opened without blocking and checked to be a regular file
/// before anything is read: a named pipe, a device or a socket would otherwise hang the reader.
std::vector<std::uint8_t> read_image_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) throw std::runtime_error(path + ": file not found");
    throw std::runtime_error(path + ": cannot open (" + std::strerror(errno) + ")");
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::runtime_error(path + ": cannot read (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw std::runtime_error(path + ": is a folder, expected an image file");
  if (!S_ISREG(st.st_mode)) {
    throw std::runtime_error(path + ": is not a regular file (a named pipe, device or socket), expected an image file");
  }
  std::vector<std::uint8_t> bytes(std::size_t(st.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw std::runtime_error(path + ": cannot read (" + std::strerror(errno) + ")");
    if (got == 0) break;  // shrank while read: the header check below sees what is there
    done += std::size_t(got);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace

RgbImage read_image(const std::string& path, long long max_pixels) {
  const auto bytes = read_image_file(path);
  if (bytes.empty()) throw std::runtime_error(path + ": empty file, expected an image");
  // The size the header declares is checked before decoding, so a small file that claims a huge
  // image cannot make the decoder allocate it; a file cut short is refused here too.
  const ImageHeader header = inspect_image(path, bytes.data(), bytes.size());
  check_image_size(path, header.width, header.height, max_pixels);
  cv::Mat img;
  try {
    img = cv::imdecode(cv::Mat(1, int(bytes.size()), CV_8UC1, const_cast<std::uint8_t*>(bytes.data())), cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) {
    // e.err is OpenCV's reason alone; e.what() adds its source file and line, over two lines.
    if (e.err.find("CV_IO_MAX_IMAGE_PIXELS") != std::string::npos) {
      throw std::runtime_error(path + ": image too large to decode (its header gives more than 2^30 pixels)");
    }
    throw std::runtime_error(path + ": cannot decode image (" + e.err + ")");
  }
  if (img.empty()) throw std::runtime_error(path + ": not a readable image (unknown format or corrupt data)");
  check_image_size(path, img.cols, img.rows, max_pixels);
  cv::Mat rgb;
  cv::cvtColor(img, rgb, cv::COLOR_BGR2RGB);
  RgbImage out(rgb.cols, rgb.rows);
  for (int y = 0; y < rgb.rows; ++y) std::memcpy(out.at(0, y), rgb.ptr(y), std::size_t(rgb.cols) * 3);
  return out;
}

namespace {

/// `image` encoded as `extension` (".png", ".jpg"); `what` names it in errors.
std::vector<uchar> encoded(const std::string& what, const RgbImage& image, const char* extension, const std::vector<int>& params) {
  if (image.empty()) throw std::invalid_argument(what + ": refusing to write an empty image");
  cv::Mat rgb(image.height, image.width, CV_8UC3, const_cast<std::uint8_t*>(image.pixels.data()));
  cv::Mat bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  std::vector<uchar> buf;
  if (!cv::imencode(extension, bgr, buf, params)) throw std::runtime_error(what + ": " + extension + " encoding failed");
  return buf;
}

/// Encodes `image` as `extension` and writes it through a temporary file.
void write_encoded(const std::string& path, const RgbImage& image, const char* extension, const std::vector<int>& params) {
  const auto buf = encoded(path, image, extension, params);
  write_file_atomically(path, std::string(buf.begin(), buf.end()));
}

}  // namespace

std::vector<std::uint8_t> encode_jpeg(const RgbImage& image, int quality) {
  const auto buf = encoded("JPEG", image, ".jpg", {cv::IMWRITE_JPEG_QUALITY, quality});
  return std::vector<std::uint8_t>(buf.begin(), buf.end());
}

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
std::vector<std::uint8_t> encode_jpeg(const RgbImage&, int) { return {}; }

#endif

}  // namespace fovea
