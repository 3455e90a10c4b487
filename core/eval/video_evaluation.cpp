#include "core/eval/video_evaluation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/data/video_io.h"
#include "core/datasets/moving_scenes.h"

namespace fovea {

std::vector<std::string> clip_annotation_files(const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw std::runtime_error(folder + ": not a folder (expected clips written by fovea data fashion-scenes --video)");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error(folder + ": no clip annotations (*.json) here; write clips with fovea data fashion-scenes --video --out " + folder);
  return files;
}

VideoEvaluation evaluate_video_folder(Captioner& captioner, const std::string& folder, const CaptionOptions& options,
                                      const StabiliserRule& rule, int every, const EachClip& each) {
  if (every < 1) throw std::invalid_argument("every must be at least 1");
  VideoEvaluation e;
  LiveCaptioner live(captioner, options, rule);
  for (const auto& json : clip_annotation_files(folder)) {
    const ClipTruth truth = read_clip_truth(json);
    VideoReader reader(truth.video);
    live.reset();
    const long long window = std::max<long long>(1, std::llround(truth.fps));  // frames in a second
    long long last_reference_change = 0;
    std::string previous_candidate;
    RgbImage frame;
    for (std::size_t f = 0; f < truth.frames.size(); ++f) {
      if (f > 0 && truth.frames[f].captions != truth.frames[f - 1].captions) {
        ++e.reference_changes;
        last_reference_change = (long long)f;
      }
      // A video that ends early (cut short, damaged) would bias the scores without a word.
      const auto ended = [&] {
        return std::runtime_error(truth.video + ": the video ends after " + std::to_string(f) + " of the " +
                                  std::to_string(truth.frames.size()) + " frames " + json +
                                  " describes (cut short or damaged?): not scored");
      };
      if (f % std::size_t(every) != 0) {
        if (!reader.skip()) throw ended();
        continue;
      }
      if (!reader.read(frame)) throw ended();
      const LiveCaption c = live.next(frame);
      const double dt = every / truth.fps;
      const bool first = f == 0;
      ++e.frames;
      e.seconds += dt;
      if (c.changed && !first) ++e.changes;
      if (!first && c.candidate != previous_candidate) ++e.candidate_changes;
      previous_candidate = c.candidate;
      // Steady: the references have held for a second (or since the clip began).
      const bool held = (long long)f - last_reference_change >= window || last_reference_change == 0;
      if (held) {
        ++e.steady_frames;
        e.steady_seconds += dt;
        if (c.changed && !first) ++e.steady_changes;
      }
      Scene scene;
      scene.image = frame;
      scene.objects = truth.frames[f].objects;
      accumulate_grounding(scene, c.shown, e.grounding);
    }
    ++e.clips;
    if (each) each(json, e);
  }
  return e;
}

nlohmann::json to_json(const VideoEvaluation& e) {
  return {{"clips", e.clips},
          {"frames", e.frames},
          {"seconds", e.seconds},
          {"pointing", e.grounding.phrase.pointing()},
          {"pointing_chance", e.grounding.phrase.chance_level()},
          {"phrases", e.grounding.phrase.count},
          {"attention_precision", e.grounding.phrase.precision()},
          {"changes", e.changes},
          {"changes_per_second", e.changes_per_second()},
          {"steady_seconds", e.steady_seconds},
          {"steady_changes", e.steady_changes},
          {"steady_changes_per_second", e.steady_changes_per_second()},
          {"reference_changes_per_second", e.seconds > 0 ? e.reference_changes / e.seconds : 0},
          {"unstabilised_changes_per_second", e.candidate_changes_per_second()},
          {"grounding", to_json(e.grounding)}};
}

}  // namespace fovea
