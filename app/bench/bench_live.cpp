// fovea bench --case live: frames a second of the live path on a 640x480 clip of moving scenes:
// decode (OpenCV/FFmpeg) + resize to the model's input + caption (greedy, then beam 3) with the
// stabiliser + the α overlay of the current word on the full frame (the GUI's overlay).
#include "app/bench/bench_live.h"

#include "app/bench/bench_cases.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/data/image_tensor.h"
#include "core/data/video_io.h"
#include "core/datasets/moving_scenes.h"
#include "core/decode/caption_stabiliser.h"
#include "core/decode/captioner.h"
#include "core/render/heatmap.h"

namespace fovea::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Stages {
  double decode = 0, resize = 0, caption = 0, overlay = 0;
  long long frames = 0, changes = 0;
};

/// One pass over the clip; the seconds each stage took.
Stages play(const std::string& clip, Captioner& captioner, const CaptionOptions& options) {
  Stages s;
  LiveCaptioner live(captioner, options);
  VideoReader reader(clip);
  const int size = int(captioner.config().image_size);
  RgbImage frame, overlay;
  const OverlayStyle style;
  for (;;) {
    auto t = Clock::now();
    if (!reader.read(frame)) break;
    s.decode += seconds_since(t);
    t = Clock::now();
    const RgbImage small = resize_image(frame, size, size);
    s.resize += seconds_since(t);
    t = Clock::now();
    const LiveCaption c = live.next(small);
    s.caption += seconds_since(t);
    t = Clock::now();
    if (!c.shown.words.empty()) {
      const auto& word = c.shown.words[std::size_t(s.frames) % c.shown.words.size()];
      render_overlay_into(frame, word.alpha, c.shown.grid_h, c.shown.grid_w, style, overlay);
    }
    s.overlay += seconds_since(t);
    s.changes += c.changed && s.frames > 0;
    ++s.frames;
  }
  return s;
}

}  // namespace

void bench_live(const std::string& model, const std::string& device, int threads, int warmup, int repeat) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("fovea-bench-live-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  ClipOptions o;
  o.width = 640, o.height = 480, o.fps = 25, o.seconds = 3, o.seed = 4242;
  MovingScenes clips("test", 1, o);
  const std::string clip = (dir / "live.mp4").string();
  const std::string codec = write_clip(clips.clip(0), clip, (dir / "live.json").string());
  Captioner captioner(model, device);
  for (const int beam : {1, 3}) {
    CaptionOptions options;
    options.beam = beam;
    for (int i = 0; i < std::max(0, std::min(warmup, 1)); ++i) (void)play(clip, captioner, options);
    Stages best;
    double best_total = 0;
    for (int r = 0; r < std::max(1, std::min(repeat, 3)); ++r) {
      const Stages s = play(clip, captioner, options);
      const double total = s.decode + s.resize + s.caption + s.overlay;
      if (best_total == 0 || total < best_total) best = s, best_total = total;
    }
    const double n = double(std::max<long long>(1, best.frames));
    std::cout << nlohmann::json({{"case", "live"},
                                 {"config",
                                  {{"model", model},
                                   {"decoding", beam == 1 ? "greedy" : "beam 3"},
                                   {"clip", "640x480, 75 frames, codec " + codec},
                                   {"includes", "decode + resize + caption with the stabiliser + alpha overlay"}}},
                                 {"threads", threads},
                                 {"device", device},
                                 {"frames_per_second", n / best_total},
                                 {"ms_per_frame",
                                  {{"decode", 1e3 * best.decode / n},
                                   {"resize", 1e3 * best.resize / n},
                                   {"caption", 1e3 * best.caption / n},
                                   {"overlay", 1e3 * best.overlay / n}}},
                                 {"frames", best.frames},
                                 {"caption_changes", best.changes}})
                     .dump()
              << std::endl;
  }
}

}  // namespace fovea::cli
