#include "core/data/video_io.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace fovea {

namespace fs = std::filesystem;

namespace {

std::string lower_extension(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return e;
}

/// N of "/dev/videoN", or -1.
int camera_number(const std::string& path) {
  const std::string prefix = "/dev/video";
  if (path.rfind(prefix, 0) != 0 || path.size() == prefix.size() || path.size() > prefix.size() + 4) return -1;
  for (std::size_t i = prefix.size(); i < path.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(path[i]))) return -1;
  return std::stoi(path.substr(prefix.size()));
}

/// FFmpeg logs what it meets in its own terms ("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55fa...] moov atom not
/// found") before Fovea's error says it in the user's: OpenCV's FFmpeg backend, which reads
/// OPENCV_FFMPEG_LOGLEVEL each time it opens a file, is told to keep quiet (-8, AV_LOG_QUIET),
/// unless FOVEA_VERBOSE is set or the user set OpenCV's own variables.
void quiet_ffmpeg() {
  static const bool done = [] {
    if (std::getenv("FOVEA_VERBOSE") == nullptr && std::getenv("OPENCV_FFMPEG_LOGLEVEL") == nullptr &&
        std::getenv("OPENCV_FFMPEG_DEBUG") == nullptr) {
      ::setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
    }
    return true;
  }();
  (void)done;
}

/// BGR (OpenCV's order) into an RgbImage, reusing its buffer.
void to_rgb(const cv::Mat& bgr, RgbImage& out) {
  if (out.width != bgr.cols || out.height != bgr.rows || out.pixels.size() != std::size_t(bgr.cols) * bgr.rows * 3) {
    out.width = bgr.cols, out.height = bgr.rows;
    out.pixels.assign(std::size_t(bgr.cols) * bgr.rows * 3, 0);
  }
  cv::Mat dst(bgr.rows, bgr.cols, CV_8UC3, out.pixels.data());
  if (bgr.channels() == 1) {
    cv::cvtColor(bgr, dst, cv::COLOR_GRAY2RGB);
  } else if (bgr.channels() == 4) {
    cv::cvtColor(bgr, dst, cv::COLOR_BGRA2RGB);
  } else {
    cv::cvtColor(bgr, dst, cv::COLOR_BGR2RGB);
  }
}

}  // namespace

bool is_camera_path(const std::string& path) { return camera_number(path) >= 0; }

bool is_video_path(const std::string& path) {
  static const char* const extensions[] = {".mp4", ".m4v", ".mov", ".webm", ".mkv", ".avi", ".mpg", ".mpeg", ".ogv"};
  const auto e = lower_extension(path);
  return is_camera_path(path) || std::find(std::begin(extensions), std::end(extensions), e) != std::end(extensions);
}

std::vector<std::string> camera_devices() {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const auto path = entry.path().string();
    if (const int n = camera_number(path); n >= 0) found.emplace_back(n, path);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& f : found) paths.push_back(f.second);
  return paths;
}

struct VideoReader::Impl {
  std::string path;
  cv::VideoCapture cap;
  cv::Mat mat;
  bool camera = false;
  bool pending = false;  ///< `mat` holds the frame the next read() returns (read at open to check the file)
  double fps = 25;
  long long count = -1, next = 0;
  int width = 0, height = 0;
  int misses = 0;
  bool ended_early = false;

  /// A file's frames ran out at `next`: before its header's count (by more than the one frame an
  /// estimate from its duration may be off)?
  bool ended() {
    ended_early = count > 0 && next + 1 < count;
    return false;
  }
};

VideoReader::VideoReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  m.path = path;
  const int camera = camera_number(path);
  m.camera = camera >= 0;
  std::error_code ec;
  if (m.camera) {
    if (!fs::exists(path, ec)) {
      const auto present = camera_devices();
      std::string list;
      for (const auto& p : present) list += (list.empty() ? "" : ", ") + p;
      throw std::runtime_error(path + ": no such camera (cameras present: " + (list.empty() ? "none" : list) + ")");
    }
    if (::access(path.c_str(), R_OK | W_OK) != 0) throw std::runtime_error(path + ": camera present but not accessible (permission denied; is this user in the video group?)");
    try {
      m.cap.open(camera, cv::CAP_V4L2);
    } catch (const cv::Exception&) {
    }
    if (!m.cap.isOpened()) throw std::runtime_error(path + ": the camera could not be opened (busy, or not a video capture device)");
    m.cap.set(cv::CAP_PROP_BUFFERSIZE, 1);  // the newest frame, not one queued behind others
  } else {
    if (!fs::exists(path, ec)) throw std::runtime_error(path + ": file not found");
    if (fs::is_directory(path, ec)) throw std::runtime_error(path + ": is a folder, expected a video file");
    if (!fs::is_regular_file(path, ec)) throw std::runtime_error(path + ": is not a regular file, expected a video file");
    if (fs::file_size(path, ec) == 0 && !ec) throw std::runtime_error(path + ": the file is empty (0 bytes): there is no video in it");
    quiet_ffmpeg();
    try {
      m.cap.open(path, cv::CAP_FFMPEG);
    } catch (const cv::Exception&) {
    }
    if (!m.cap.isOpened()) throw std::runtime_error(path + ": not a video that can be read (its container or codec is unknown, or the file is damaged)");
  }
  bool got = false;
  try {
    got = m.cap.read(m.mat) && !m.mat.empty();
  } catch (const cv::Exception&) {
  }
  if (!got) throw std::runtime_error(path + (m.camera ? ": the camera opened but delivered no frame" : ": the video holds no frame that can be decoded"));
  m.pending = true;
  m.width = m.mat.cols, m.height = m.mat.rows;
  const double fps = m.cap.get(cv::CAP_PROP_FPS);
  if (std::isfinite(fps) && fps > 0.5 && fps <= 1000) m.fps = fps;
  if (!m.camera) m.count = std::max<long long>(1, std::llround(m.cap.get(cv::CAP_PROP_FRAME_COUNT)));
}

VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;

bool VideoReader::read(RgbImage& frame) {
  auto& m = *impl_;
  if (!m.pending) {
    bool got = false;
    try {
      got = m.cap.read(m.mat) && !m.mat.empty();
    } catch (const cv::Exception&) {
    }
    if (!got) {
      if (m.camera) throw std::runtime_error(m.path + ": the camera stopped delivering frames");
      return m.ended();
    }
  }
  m.pending = false;
  to_rgb(m.mat, frame);
  ++m.next;
  return true;
}

bool VideoReader::skip() {
  auto& m = *impl_;
  if (m.pending) {
    m.pending = false;
  } else if (!m.cap.grab()) {
    if (m.camera) throw std::runtime_error(m.path + ": the camera stopped delivering frames");
    return m.ended();
  }
  ++m.next;
  return true;
}

void VideoReader::seek(long long index) {
  auto& m = *impl_;
  if (m.camera) throw std::logic_error(m.path + ": a camera cannot seek");
  index = std::clamp<long long>(index, 0, std::max<long long>(0, m.count - 1));
  m.pending = false;
  m.cap.set(cv::CAP_PROP_POS_FRAMES, double(index));
  m.next = index;
}

const std::string& VideoReader::path() const { return impl_->path; }
bool VideoReader::is_camera() const { return impl_->camera; }
double VideoReader::fps() const { return impl_->fps; }
long long VideoReader::frame_count() const { return impl_->count; }
long long VideoReader::next_index() const { return impl_->next; }
bool VideoReader::ended_early() const { return impl_->ended_early; }
int VideoReader::width() const { return impl_->width; }
int VideoReader::height() const { return impl_->height; }

namespace {

/// The FourCCs to try for an extension, best first; empty for an extension not written.
std::vector<std::string> codecs_for(const std::string& extension) {
  if (extension == ".mp4" || extension == ".m4v" || extension == ".mov") return {"avc1", "mp4v"};
  if (extension == ".avi") return {"MJPG"};
  if (extension == ".mkv") return {"FFV1"};
  if (extension == ".webm") return {"VP80"};
  return {};
}

/// How many frames the file at `path` holds, as VideoReader reads them (0 when it cannot open it).
long long frames_in(const std::string& path) {
  try {
    VideoReader reader(path);
    long long frames = 0;
    while (reader.skip()) ++frames;
    return frames;
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

std::string video_codecs_text() {
  return ".mp4/.m4v/.mov: H.264 (avc1; MPEG-4 part 2, mp4v, where FFmpeg has no H.264 encoder), .avi: Motion JPEG, "
         ".mkv: FFV1 (lossless), .webm: VP8";
}

struct VideoWriter::Impl {
  std::string path, temporary, codec;
  cv::VideoWriter writer;
  cv::Mat bgr;
  int width = 0, height = 0;
  long long frames = 0;
  bool closed = false;
};

VideoWriter::VideoWriter(const std::string& path, int width, int height, double fps) : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  m.path = path, m.width = width, m.height = height;
  const auto extension = lower_extension(path);
  const auto codecs = codecs_for(extension);
  if (codecs.empty()) throw std::invalid_argument(path + ": cannot write a video of this type; name it " + video_codecs_text());
  if (width <= 0 || height <= 0 || width % 2 || height % 2) {
    throw std::invalid_argument(path + ": video frames must have even, positive sides, got " + std::to_string(width) + "x" + std::to_string(height));
  }
  if (!(fps > 0 && fps <= 1000)) throw std::invalid_argument(path + ": frame rate must be in (0, 1000]");
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw std::invalid_argument(path + ": is a folder, cannot write a video there");
  m.temporary = (p.parent_path() / (p.stem().string() + ".tmp-" + std::to_string(::getpid()) + extension)).string();
  quiet_ffmpeg();
  for (const auto& c : codecs) {
    try {
      if (m.writer.open(m.temporary, cv::CAP_FFMPEG, cv::VideoWriter::fourcc(c[0], c[1], c[2], c[3]), fps, cv::Size(width, height))) {
        m.codec = c;
        break;
      }
    } catch (const cv::Exception&) {
    }
  }
  if (m.codec.empty()) {
    fs::remove(m.temporary, ec);
    throw std::runtime_error(path + ": no encoder for " + extension + " in OpenCV's FFmpeg backend (or the folder is not writable)");
  }
}

VideoWriter::~VideoWriter() {
  if (impl_ && !impl_->closed) {
    impl_->writer.release();
    std::error_code ec;
    fs::remove(impl_->temporary, ec);
  }
}

void VideoWriter::write(const RgbImage& frame) {
  auto& m = *impl_;
  if (m.closed) throw std::logic_error(m.path + ": written after close");
  if (frame.width != m.width || frame.height != m.height) {
    throw std::invalid_argument(m.path + ": frame of " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                                " in a video of " + std::to_string(m.width) + "x" + std::to_string(m.height));
  }
  const cv::Mat rgb(frame.height, frame.width, CV_8UC3, const_cast<std::uint8_t*>(frame.pixels.data()));
  cv::cvtColor(rgb, m.bgr, cv::COLOR_RGB2BGR);
  m.writer.write(m.bgr);
  ++m.frames;
}

void VideoWriter::close() {
  auto& m = *impl_;
  if (m.closed) return;
  m.writer.release();
  m.closed = true;
  std::error_code ec;
  if (m.frames == 0) {
    fs::remove(m.temporary, ec);
    throw std::runtime_error(m.path + ": no frames to write");
  }
  // OpenCV's writer drops FFmpeg's write errors (a full disk leaves a short or empty file), so
  // the file is read back: it replaces the target only when it holds every frame written.
  const long long readable = frames_in(m.temporary);
  if (readable != m.frames) {
    fs::remove(m.temporary, ec);
    const auto space = fs::space(fs::absolute(m.temporary, ec).parent_path(), ec);
    const bool full = !ec && space.available < (std::uintmax_t(1) << 20);
    throw std::runtime_error(m.path + ": write failed (" + (full ? "no space left on its disk" : "the file came out short or damaged") +
                             "): " + std::to_string(readable) + " of the " + std::to_string(m.frames) +
                             " frames written could be read back; nothing was replaced");
  }
  fs::rename(m.temporary, m.path, ec);
  if (ec) {
    const std::string reason = ec.message();
    fs::remove(m.temporary, ec);
    throw std::runtime_error(m.path + ": cannot write (" + reason + ")");
  }
}

const std::string& VideoWriter::codec() const { return impl_->codec; }
long long VideoWriter::frames() const { return impl_->frames; }

}  // namespace fovea
