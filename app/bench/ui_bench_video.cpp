// fovea-ui-bench --case video: how long the GUI thread is blocked while a video plays captioned.
#include "app/bench/ui_bench_video.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/datasets/moving_scenes.h"
#include "ui/explorer/live_source.h"
#include "ui/explorer/decoding_controls.h"
#include "ui/explorer/live_controls.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/resource_paths.h"
#include "ui/common/word_player.h"

namespace fovea::ui_bench {

int video_case(QApplication& app, double seconds, int beam) {
  QTemporaryDir tmp;
  ClipOptions o;
  o.width = 640, o.height = 480, o.fps = 25, o.seconds = 4, o.seed = 4242;
  const QString clip = tmp.filePath("live.mp4");
  write_clip(MovingScenes("test", 1, o).clip(0), clip.toStdString(), tmp.filePath("live.json").toStdString());

  fovea::ui::MainWindow window;
  window.loadModel(fovea::ui::default_model_path());
  window.decoding()->setBeam(beam);
  window.show();
  window.live()->openVideo(clip, false);
  std::vector<double> gaps;
  long long frames = 0;
  QObject::connect(window.liveSource(), &fovea::ui::LiveSource::frameReady, [&] { ++frames; });
  QElapsedTimer clock;
  qint64 last = 0;
  QTimer tick;
  tick.setTimerType(Qt::PreciseTimer);
  tick.setInterval(1);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    gaps.push_back(std::max(0.0, double(now - last) / 1e6 - 1.0));
    last = now;
  });
  // Measured from the first captioned frame on: the window then shows frames, words and α.
  QTimer start;
  QObject::connect(&start, &QTimer::timeout, [&] {
    if (window.liveSource()->latest().caption.words.empty()) return;
    start.stop();
    window.player()->setWordsPerSecond(8);
    frames = 0;
    clock.start();
    last = 0;
    tick.start();
    QTimer::singleShot(int(seconds * 1000), [&] {
      tick.stop();
      std::sort(gaps.begin(), gaps.end());
      const auto at = [&](double p) { return gaps.empty() ? 0.0 : gaps[std::min(gaps.size() - 1, std::size_t(p * double(gaps.size() - 1) + 0.5))]; };
      const nlohmann::json j = {{"case", "ui_latency_video"},
                                {"config", {{"clip", "640x480, 25 frames/s, looping"}, {"beam", beam}, {"timer_ms", 1}}},
                                {"seconds", seconds},
                                {"frames_shown", frames},
                                {"frames_shown_per_second", double(frames) / seconds},
                                {"ticks", gaps.size()},
                                {"max_blocked_ms", at(1.0)},
                                {"p99_blocked_ms", at(0.99)},
                                {"median_blocked_ms", at(0.5)}};
      std::printf("%s\n", j.dump().c_str());
      std::fflush(stdout);
      window.live()->stop();
      QApplication::exit(0);
    });
  });
  start.start(20);
  return app.exec();
}

}  // namespace fovea::ui_bench
