// The video faces of fovea caption, export, eval and data: thin wiring of core/data/video_io.h,
// core/decode/caption_stabiliser.h, core/render/video_export.h and core/eval/video_evaluation.h.
#include "app/cli/video_commands.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/stop_signal.h"
#include "core/data/video_io.h"
#include "core/decode/captioner.h"
#include "core/eval/video_evaluation.h"
#include "core/render/video_export.h"

namespace fovea::cli {

namespace {

/// A video whose frames ran out before its header's count is said to be cut short, where it ends.
void warn_cut_short(const std::string& video, long long frames, long long declared) {
  std::cerr << "fovea: warning: " << video << ": the video ends after " << frames << " of the " << declared
            << " frames its header gives (cut short or damaged?); only those were captioned\n";
}

void note_glimpses(const CaptionChoices& c, const Captioner& captioner) {
  if (c.sample_glimpses && captioner.config().attention != AttentionKind::Hard)
    std::cerr << "fovea: note: --sample-glimpses applies to hard models; this soft model shows its expected alpha\n";
}

}  // namespace

void parse_frame_size(const std::string& text, int& width, int& height, const std::string& what) {
  int w = 0, h = 0;
  char x = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X')) {
    throw std::invalid_argument(what + " must be WIDTHxHEIGHT (e.g. 640x480), got '" + text + "'");
  }
  width = w, height = h;
}

int caption_video(const std::string& video, const CaptionChoices& choices, bool json) {
  VideoReader reader(video);  // first: a missing file or camera is said before the model loads
  Captioner captioner(choices.model, choices.device);
  note_glimpses(choices, captioner);
  LiveCaptioner live(captioner, choices.options());
  std::atomic<bool>* stop = reader.is_camera() ? stop_on_interrupt() : nullptr;
  const long long every = std::max<std::int64_t>(1, choices.every);
  RgbImage frame;
  for (;;) {
    if (stop && stop->load()) break;
    const long long index = reader.next_index();
    if (index % every != 0) {
      if (!reader.skip()) break;
      continue;
    }
    if (!reader.read(frame)) break;
    const LiveCaption c = live.next(frame);
    const double time = double(index) / reader.fps();
    if (json) {
      auto j = to_json(c.shown);
      j["frame"] = index;
      j["time"] = time;
      j["changed"] = c.changed;
      j["frame_caption"] = c.candidate;
      std::cout << j.dump() << "\n";
    } else {
      char t[32];
      std::snprintf(t, sizeof t, "%.3f", time);
      std::cout << t << "\t" << c.shown.text() << "\n";
    }
  }
  std::cout.flush();
  if (reader.ended_early()) warn_cut_short(video, reader.next_index(), reader.frame_count());
  return 0;
}

int export_video(const std::string& video, const std::string& out, const CaptionChoices& choices, const OverlayStyle& style,
                 int width) {
  if (out.empty()) throw std::invalid_argument("give --out CLIP.mp4 (or .avi, .mkv, .webm) for the annotated video");
  if (!is_video_path(out) || is_camera_path(out)) {
    throw std::invalid_argument("--out " + out + ": a video is exported as a video; name it " + video_codecs_text());
  }
  { VideoReader check(video); }  // a missing input is said before the model loads
  Captioner captioner(choices.model, choices.device);
  note_glimpses(choices, captioner);
  LiveCaptioner live(captioner, choices.options());
  VideoExportOptions o;
  o.style = style;
  o.width = width;
  std::atomic<bool>* stop = is_camera_path(video) ? stop_on_interrupt() : nullptr;
  const auto s = export_annotated_video(video, out, live, o, [&](long long, const LiveCaption&) { return !(stop && stop->load()); });
  std::cout << "wrote " << out << " (" << s.frames << " frames, " << s.width << "x" << s.height << ", " << s.fps
            << " frames/s, codec " << s.codec << "; the shown caption changed " << s.changes << " times)\n";
  if (s.declared_frames >= 0) warn_cut_short(video, s.frames, s.declared_frames);
  return 0;
}

int eval_video(const std::string& folder, const CaptionChoices& choices, const StabiliserRule& rule, bool json) {
  clip_annotation_files(folder);  // said before the model loads
  Captioner captioner(choices.model, choices.device);
  note_glimpses(choices, captioner);
  const auto opts = choices.options();
  const auto e = evaluate_video_folder(captioner, folder, opts, rule, int(choices.every), [&](const std::string& file, const VideoEvaluation& so_far) {
    if (!json) std::cerr << "  " << std::filesystem::path(file).filename().string() << ": " << so_far.frames << " frames so far\n";
  });
  if (json) {
    auto j = to_json(e);
    j["model"] = choices.model;
    j["folder"] = folder;
    j["beam"] = opts.beam;
    j["every"] = choices.every;
    j["stabiliser"] = {{"margin", rule.margin}, {"frames", rule.frames}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%s on %zu clips in %s (%s, every %lld frame%s; stabiliser: %.2f nats over %d frames)\n", choices.model.c_str(),
              e.clips, folder.c_str(), opts.beam > 1 ? ("beam " + std::to_string(opts.beam)).c_str() : "greedy",
              (long long)choices.every, choices.every == 1 ? "" : "s", rule.margin, rule.frames);
  std::printf("  frames %lld (%.1f s); noun phrases %lld\n", e.frames, e.seconds, (long long)e.grounding.phrase.count);
  std::printf("  noun-phrase pointing %.1f%% (chance %.1f%%), alpha in the box %.1f%%\n", 100 * e.grounding.phrase.pointing(),
              100 * e.grounding.phrase.chance_level(), 100 * e.grounding.phrase.precision());
  std::printf("  shown-caption changes: %.2f a second; %.2f a second while the references hold still (%.1f s)\n",
              e.changes_per_second(), e.steady_changes_per_second(), e.steady_seconds);
  std::printf("  without the stabiliser: %.2f a second; the references themselves: %.2f a second\n",
              e.candidate_changes_per_second(), e.seconds > 0 ? e.reference_changes / e.seconds : 0.0);
  return 0;
}

int write_video_clips(const std::string& out, const std::string& split, std::size_t start, std::size_t count,
                      const ClipOptions& options, const std::string& format) {
  namespace fs = std::filesystem;
  MovingScenes clips(split, start + count, options);
  fs::create_directories(out);
  std::string codec;
  for (std::size_t i = start; i < start + count; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "%s_%05zu", split.c_str(), i);
    codec = write_clip(clips.clip(i), (fs::path(out) / (std::string(name) + "." + format)).string(),
                       (fs::path(out) / (std::string(name) + ".json")).string());
  }
  std::cout << "wrote " << count << (count == 1 ? " clip" : " clips") << " (" << options.width << "x" << options.height << ", "
            << options.seconds << " s at " << options.fps << " frames/s, codec " << codec << ") with their annotations to " << out
            << "\n";
  return 0;
}

}  // namespace fovea::cli
