#pragma once
/// Live captioning scored on annotated clips (core/datasets/moving_scenes.h): per-frame noun-phrase
/// pointing of the shown caption's α (core/eval/grounding.h, the frame's own boxes) and how often the
/// shown caption changes, through the same LiveCaptioner as `fovea caption VIDEO` and fovea-studio.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/decode/caption_stabiliser.h"
#include "core/decode/captioner.h"
#include "core/eval/grounding.h"

namespace fovea {

struct VideoEvaluation {
  std::size_t clips = 0;
  long long frames = 0;           ///< frames captioned
  double seconds = 0;             ///< their duration
  long long changes = 0;          ///< shown-caption changes (a clip's first caption is not one)
  long long reference_changes = 0;  ///< changes of the frames' reference captions (objects crossing, ...)
  /// Frames whose reference captions have not changed for a second (the scene's content and
  /// layout hold still), and the shown-caption changes on them.
  long long steady_frames = 0, steady_changes = 0;
  double steady_seconds = 0;
  long long candidate_changes = 0;  ///< how often each frame's own caption differs from the previous frame's (no stabiliser)
  GroundingReport grounding;        ///< of the shown caption, every frame
  double changes_per_second() const { return seconds > 0 ? changes / seconds : 0; }
  double steady_changes_per_second() const { return steady_seconds > 0 ? steady_changes / steady_seconds : 0; }
  double candidate_changes_per_second() const { return seconds > 0 ? candidate_changes / seconds : 0; }
};

/// The clip annotation files (*.json written by write_clip) in `folder`, sorted. Throws naming the
/// folder when it is missing or holds none.
std::vector<std::string> clip_annotation_files(const std::string& folder);

/// Called after each clip with its file and the running totals.
using EachClip = std::function<void(const std::string& json_path, const VideoEvaluation& so_far)>;

/// Plays every clip of `folder` through a LiveCaptioner (every `every`-th frame) and scores it.
/// Throws naming the video when it ends before the frames its annotations describe.
VideoEvaluation evaluate_video_folder(Captioner& captioner, const std::string& folder, const CaptionOptions& options,
                                      const StabiliserRule& rule, int every = 1, const EachClip& each = {});

/// {"clips","frames","seconds","pointing",...,"changes_per_second","steady_changes_per_second",...}
nlohmann::json to_json(const VideoEvaluation& e);

}  // namespace fovea
