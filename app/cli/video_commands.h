#pragma once
/// The video faces of `fovea caption`, `export`, `eval` and `data` (app/cli/video_commands.cpp): each
/// command hands a video to these when its argument names one (core/data/video_io.h).
#include <string>

#include "core/datasets/moving_scenes.h"
#include "core/decode/caption_settings.h"
#include "core/decode/caption_stabiliser.h"
#include "core/render/heatmap.h"

namespace fovea::cli {

/// `fovea caption VIDEO`: one line per captioned frame (time and shown caption), or with `json`
/// one JSON object per line. A camera runs until Ctrl-C.
int caption_video(const std::string& video, const CaptionChoices& choices, bool json);

/// `fovea export VIDEO --out clip.mp4`: the video with the α of the current word and the caption.
int export_video(const std::string& video, const std::string& out, const CaptionChoices& choices, const OverlayStyle& style,
                 int width);

/// `fovea eval --video DIR`: per-frame pointing and caption changes a second on annotated clips.
int eval_video(const std::string& folder, const CaptionChoices& choices, const StabiliserRule& rule, bool json);

/// `fovea data fashion-scenes --video`: `count` clips from `start` of the split, each a video
/// (`format`: mp4, avi, mkv or webm) with its annotations (.json) beside it.
int write_video_clips(const std::string& out, const std::string& split, std::size_t start, std::size_t count,
                      const ClipOptions& options, const std::string& format);

/// "WxH" (e.g. 640x480) into width and height; throws std::invalid_argument naming `what`.
void parse_frame_size(const std::string& text, int& width, int& height, const std::string& what);

}  // namespace fovea::cli
