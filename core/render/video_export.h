#pragma once
/// A video with its live captions drawn in: every frame shows the α of the current word over the
/// picture and the shown caption under it with that word highlighted (animation_frame() of
/// core/render/figure.h), the words taking turns as the word player's do. `fovea export VIDEO`
/// and fovea-studio's Export of a video call it.
#include <functional>
#include <string>

#include "core/decode/caption_stabiliser.h"
#include "core/render/heatmap.h"

namespace fovea {

struct VideoExportOptions {
  OverlayStyle style;
  double word_seconds = 0.6;  ///< how long each word of the shown caption is highlighted
  int width = 0;              ///< output width in pixels (0: the source's; made even)
};

struct VideoExportSummary {
  long long frames = 0;
  long long changes = 0;  ///< shown-caption changes after the first
  int width = 0, height = 0;
  double fps = 0;
  std::string codec;
  long long declared_frames = -1;  ///< the frames the input's header gives, when it ended well before them (cut short)
};

/// Called after each frame with its index and the caption shown on it; return false to stop (the
/// output is then not written).
using EachExportedFrame = std::function<bool(long long frame, const LiveCaption& caption)>;

/// Reads `video` (a file or a camera, core/data/video_io.h), captions each frame with `live` and
/// writes the annotated video to `out` (codec by extension; temporary file + rename). A camera
/// runs until `each` returns false, and what was recorded is kept. Throws naming the file when the
/// input cannot be read or the output written, or when `out` is the input itself.
VideoExportSummary export_annotated_video(const std::string& video, const std::string& out, LiveCaptioner& live,
                                          const VideoExportOptions& options = {}, const EachExportedFrame& each = {});

/// Which word of a caption of `words` words is highlighted `seconds` after it was first shown.
std::size_t current_word(std::size_t words, double seconds, double word_seconds);

}  // namespace fovea
