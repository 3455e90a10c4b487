// core/data/video_io.h in a build without OpenCV (-DFOVEA_WITH_OPENCV=OFF): paths are still told
// apart, and every reader and writer says why it cannot open.
#include <stdexcept>

#include "core/data/video_io.h"

namespace fovea {

namespace {
[[noreturn]] void unavailable(const std::string& path) {
  throw std::runtime_error(path + ": videos need OpenCV, and this build has none (built with -DFOVEA_WITH_OPENCV=OFF)");
}
}  // namespace

bool is_camera_path(const std::string& path) { return path.rfind("/dev/video", 0) == 0; }
bool is_video_path(const std::string& path) {
  for (const char* e : {".mp4", ".m4v", ".mov", ".webm", ".mkv", ".avi", ".mpg", ".mpeg", ".ogv"}) {
    const std::string ext(e);
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return true;
  }
  return is_camera_path(path);
}
std::vector<std::string> camera_devices() { return {}; }
std::string video_codecs_text() { return "none (no OpenCV in this build)"; }

struct VideoReader::Impl {};
VideoReader::VideoReader(const std::string& path) { unavailable(path); }
VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;
bool VideoReader::read(RgbImage&) { return false; }
bool VideoReader::skip() { return false; }
void VideoReader::seek(long long) {}
const std::string& VideoReader::path() const { static const std::string none; return none; }
bool VideoReader::is_camera() const { return false; }
double VideoReader::fps() const { return 25; }
long long VideoReader::frame_count() const { return 0; }
long long VideoReader::next_index() const { return 0; }
bool VideoReader::ended_early() const { return false; }
int VideoReader::width() const { return 0; }
int VideoReader::height() const { return 0; }

struct VideoWriter::Impl {};
VideoWriter::VideoWriter(const std::string& path, int, int, double) { unavailable(path); }
VideoWriter::~VideoWriter() = default;
void VideoWriter::write(const RgbImage&) {}
void VideoWriter::close() {}
const std::string& VideoWriter::codec() const { static const std::string none; return none; }
long long VideoWriter::frames() const { return 0; }

}  // namespace fovea
