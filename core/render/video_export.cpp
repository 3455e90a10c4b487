#include "core/render/video_export.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "core/data/video_io.h"
#include "core/render/figure.h"

namespace fovea {

std::size_t current_word(std::size_t words, double seconds, double word_seconds) {
  if (words == 0) return 0;
  if (!(word_seconds > 0)) return 0;
  return std::size_t(std::max(0.0, std::floor(seconds / word_seconds))) % words;
}

VideoExportSummary export_annotated_video(const std::string& video, const std::string& out, LiveCaptioner& live,
                                          const VideoExportOptions& options, const EachExportedFrame& each) {
  std::error_code ec;
  if (std::filesystem::equivalent(video, out, ec)) throw std::invalid_argument(out + " is the input video itself: write to another file");
  VideoReader reader(video);
  VideoExportSummary s;
  s.fps = reader.fps();
  const int width = std::max(16, (options.width > 0 ? options.width : reader.width()) / 2 * 2);
  std::unique_ptr<VideoWriter> writer;
  RgbImage frame, padded;
  live.reset();
  long long shown_since = 0;
  while (reader.read(frame)) {
    const long long index = reader.next_index() - 1;
    const LiveCaption c = live.next(frame);
    if (c.changed) {
      if (index > 0) ++s.changes;
      shown_since = index;
    }
    const double seconds = double(index - shown_since) / s.fps;
    RgbImage annotated = c.shown.words.empty()
                             ? frame
                             : animation_frame(frame, c.shown, current_word(c.shown.words.size(), seconds, options.word_seconds),
                                               options.style, width);
    if (!writer) {
      // Every frame of a video has one size: the first frame's, each later one padded or cut to it.
      s.width = width;
      s.height = (annotated.height + 1) / 2 * 2;
      writer = std::make_unique<VideoWriter>(out, s.width, s.height, s.fps);
      s.codec = writer->codec();
    }
    if (annotated.width != s.width || annotated.height != s.height) {
      padded = RgbImage(s.width, s.height, 255);
      const int w = std::min(s.width, annotated.width), h = std::min(s.height, annotated.height);
      for (int y = 0; y < h; ++y) std::copy_n(annotated.at(0, y), std::size_t(w) * 3, padded.at(0, y));
      writer->write(padded);
    } else {
      writer->write(annotated);
    }
    ++s.frames;
    if (each && !each(index, c)) {
      if (!reader.is_camera()) return s;  // stopped: the writer's destructor removes the unfinished file
      break;
    }
  }
  if (reader.ended_early()) s.declared_frames = reader.frame_count();
  if (!writer) throw std::runtime_error(video + ": no frame to export");
  writer->close();
  return s;
}

}  // namespace fovea
