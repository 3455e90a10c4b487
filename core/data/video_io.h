#pragma once
/// Video files and cameras, frame by frame, through OpenCV's videoio (its FFmpeg backend for files,
/// V4L2 for cameras): what `fovea caption/export/eval` on a video and fovea-studio's live source read,
/// and what clips are written with. Frames are RgbImages like every other image in Fovea.
#include <memory>
#include <string>
#include <vector>

#include "core/data/image.h"

namespace fovea {

/// Whether `path` names a video rather than an image: a camera ("/dev/videoN") or a file whose
/// extension is a video container (.mp4 .m4v .mov .webm .mkv .avi .mpg .mpeg .ogv).
bool is_video_path(const std::string& path);
/// Whether `path` names a camera device ("/dev/videoN").
bool is_camera_path(const std::string& path);
/// The camera devices present on this machine (/dev/video0, /dev/video1, ...), in order.
std::vector<std::string> camera_devices();

/// One video source: a file (seekable, with a frame count) or a camera (live, no end).
class VideoReader {
 public:
  /// Opens a video file or a camera ("/dev/videoN"). Throws std::runtime_error naming the file or
  /// the device and saying what is wrong: missing, a folder, no decodable video in it, no such
  /// camera, a camera that delivers no frame.
  explicit VideoReader(const std::string& path);
  ~VideoReader();
  VideoReader(VideoReader&&) noexcept;
  VideoReader& operator=(VideoReader&&) noexcept;

  /// The next frame into `frame` (reusing its buffer); false at the end of a file. A camera that
  /// stops delivering frames throws naming the device.
  bool read(RgbImage& frame);
  /// Skips the next frame without converting it (cheap: what a player that falls behind drops).
  bool skip();
  /// Seeks a file to frame `index` (clamped to the file); the next read() returns that frame.
  /// Throws for a camera.
  void seek(long long index);

  const std::string& path() const;
  bool is_camera() const;
  double fps() const;               ///< frames per second the file or camera declares (25 if unknown)
  long long frame_count() const;    ///< frames in a file (an estimate from its header); -1 for a camera
  /// Whether a file's frames ran out (read() or skip() returned false) two or more frames before
  /// the count its header gives: the file was cut short or is damaged. next_index() is then the
  /// number of frames it held.
  bool ended_early() const;
  long long next_index() const;     ///< index of the frame the next read() returns
  int width() const;
  int height() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes a video file frame by frame. The codec follows the extension: .mp4/.m4v/.mov H.264
/// ("avc1", where the FFmpeg build has an H.264 encoder; else MPEG-4 part 2, "mp4v"), .avi Motion
/// JPEG ("MJPG"), .mkv FFV1 (lossless), .webm VP8. The file is written under a temporary name in
/// the same folder and renamed by close(): an interrupted export never leaves half a video behind.
class VideoWriter {
 public:
  /// Throws std::invalid_argument naming the path for another extension, or an odd or empty size
  /// (the codecs want even sides), std::runtime_error when no codec for it opens.
  VideoWriter(const std::string& path, int width, int height, double fps);
  ~VideoWriter();  ///< without close(): the temporary file is removed
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  /// Throws std::invalid_argument when the frame's size is not the writer's.
  void write(const RgbImage& frame);
  /// Finishes the file and gives it its name.
  void close();
  /// The codec in use, as its FourCC ("avc1", "mp4v", "MJPG", ...).
  const std::string& codec() const;
  long long frames() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The extensions VideoWriter writes, with their codecs, for help texts and docs.
std::string video_codecs_text();

}  // namespace fovea
