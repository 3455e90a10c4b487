// fovea-ui-bench: the `ui_latency` case of `fovea bench`. How long is fovea-studio's GUI
// thread blocked while a training run trains (dashboards and snapshots updating live) and a caption
// animates? A 1 ms precise timer on the GUI thread records the gaps between its ticks; the longest
// gap minus the interval is the longest block. Prints one JSON line like the other cases.
//
// Two more figures tell the GUI's share from the machine's: the longest single event the GUI
// thread handled (Qt's own work for one paint, one record, one timer), and the longest block of a
// plain thread that sleeps 1 ms at a time beside it (no Qt, no locks shared with the GUI): what
// the machine alone costs while the run trains, which no change to the GUI can remove.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEvent>
#include <QLabel>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/bench/ui_bench_gap_probe.h"
#include "app/bench/ui_bench_runs_folder.h"
#include "app/bench/ui_bench_video.h"
#include "core/runtime/process_startup.h"
#include "core/train/train_config.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/resource_paths.h"
#include "ui/common/word_player.h"
#include "ui/training/training_run.h"
#include "ui/training/training_window.h"

namespace {

/// Seconds since the program started: the time base of the trace lines.
QElapsedTimer& program_clock() {
  static QElapsedTimer clock = [] {
    QElapsedTimer c;
    c.start();
    return c;
  }();
  return clock;
}

/// Times the events the GUI thread handles: the longest one delivered from the event loop itself
/// (depth 0) while `measuring` is set. With FOVEA_UI_BENCH_TRACE set, also names every event that
/// kept the GUI thread longer than 8 ms (FOVEA_UI_BENCH_TRACE_US=N: longer than N microseconds),
/// with its nesting depth: an event delivered inside another one's handler is depth 1 and up.
class TracingApplication : public QApplication {
 public:
  using QApplication::QApplication;
  bool measuring = false;
  double longest_event_ms = 0;

  bool notify(QObject* receiver, QEvent* event) override {
    if (!trace_ && !measuring) return QApplication::notify(receiver, event);
    // Named before delivery: the receiver may delete itself while handling the event.
    const QByteArray name =
        trace_ ? QByteArray(receiver->metaObject()->className()) + " '" + receiver->objectName().toUtf8() + "'" +
                     (qobject_cast<QLabel*>(receiver) ? " \"" + qobject_cast<QLabel*>(receiver)->text().left(40).toUtf8() + "\"" : QByteArray())
               : QByteArray();
    const int type = int(event->type());
    const qint64 start = program_clock().nsecsElapsed();
    const double cpu_start = fovea::ui_bench::thread_cpu_ms();
    ++depth_;
    const bool r = QApplication::notify(receiver, event);
    --depth_;
    const double ms = double(program_clock().nsecsElapsed() - start) / 1e6;
    if (measuring && depth_ == 0) longest_event_ms = std::max(longest_event_ms, ms);
    if (trace_ && ms > threshold_ms_) {
      std::fprintf(stderr, "  t=%.3fs depth %d event %d to %s: %.2f ms (%.2f ms on the CPU)\n", double(start) / 1e9, depth_, type,
                   name.constData(), ms, fovea::ui_bench::thread_cpu_ms() - cpu_start);
    }
    return r;
  }

 private:
  bool trace_ = qEnvironmentVariableIsSet("FOVEA_UI_BENCH_TRACE");
  double threshold_ms_ =
      qEnvironmentVariableIsSet("FOVEA_UI_BENCH_TRACE_US") ? qEnvironmentVariableIntValue("FOVEA_UI_BENCH_TRACE_US") / 1000.0 : 8.0;
  int depth_ = 0;
};

/// A thread that sleeps 1 ms at a time and records how much longer each sleep took: the
/// machine's own stalls (other threads, the hypervisor), measured beside the GUI thread. It
/// records from `live` on, the same window as the GUI thread's gaps.
class ControlSleeper {
 public:
  std::atomic<bool> live{false};

  void start() {
    thread_ = std::thread([this] {
      auto last = std::chrono::steady_clock::now();
      while (!stop_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const auto now = std::chrono::steady_clock::now();
        const double blocked = std::max(0.0, std::chrono::duration<double, std::milli>(now - last).count() - 1.0);
        last = now;
        if (!live) continue;
        blocked_.push_back(blocked);
        if (trace_ && blocked > 7) {
          std::fprintf(stderr, "t=%.3fs control thread blocked %.1f ms (monotonic %.3f s)\n",
                       double(program_clock().nsecsElapsed()) / 1e9 - blocked / 1e3, blocked,
                       std::chrono::duration<double>(now.time_since_epoch()).count());
        }
      }
    });
  }
  /// The blocks recorded, once the thread has stopped.
  const std::vector<double>& stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return blocked_;
  }
  ~ControlSleeper() { stop(); }

 private:
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::vector<double> blocked_;
  bool trace_ = qEnvironmentVariableIsSet("FOVEA_UI_BENCH_TRACE");
};

/// The shipped recipe at its real sizes on a small slice of the data, so validation passes and
/// caption snapshots happen inside the measured window too.
fovea::TrainConfig recipe_slice(const QString& out_dir) {
  auto config = fovea::recommended_train_config();
  config.train_scenes = 640;  // 10 steps per epoch
  config.val_scenes = 64;
  config.epochs = 1000;
  config.pretrain_steps = 0;  // straight to the captioning steps, snapshots and validations
  config.out_dir = out_dir.toStdString();
  return config;
}

/// --case training: the main window animates a caption while its training window trains, for
/// `measure_s` seconds from the run's first progress report; prints the JSON line.
int training_case(TracingApplication& app, double measure_s, const QString& threads) {
  QTemporaryDir tmp;
  fovea::ui::MainWindow window;
  window.loadModel(fovea::ui::default_model_path());
  window.openFolder(fovea::ui::samples_dir());
  window.show();
  auto* training = window.trainingWindow();
  training->setConfirmClose(false);
  training->setRunsRoot(tmp.path());
  training->show();

  const auto config = recipe_slice(tmp.filePath("run"));
  qputenv("OMP_NUM_THREADS", threads.toUtf8());  // the trainer's thread count

  int snapshots = 0, validations = 0, records = 0;
  ControlSleeper control;
  double start_blocked_ms = 0;
  bool live = false;  // before the first progress report: the click that starts the run
  fovea::ui_bench::GapProbe probe;
  QObject::connect(training->training(), &fovea::ui::TrainingRun::record, [&] { ++records; });
  QObject::connect(training->training(), &fovea::ui::TrainingRun::progress, [&] {
    if (live) return;
    live = true;  // from the first progress report on, the run is live
    start_blocked_ms = probe.report()["max_blocked_ms"].get<double>();
    probe.clear();
    app.measuring = true;
    control.live = true;
  });
  QObject::connect(training->training(), &fovea::ui::TrainingRun::samples, [&] { ++snapshots; });
  QObject::connect(training->training(), &fovea::ui::TrainingRun::validation, [&] { ++validations; });

  // Start once the first caption is up: then the animation and the training run together.
  QTimer start;
  QObject::connect(&start, &QTimer::timeout, [&] {
    if (!window.primaryPanel()->hasCaption()) return;
    start.stop();
    window.player()->setWordsPerSecond(8);
    window.player()->play();
    training->startRun(config);
    probe.start();
    control.start();
    QTimer::singleShot(int(measure_s * 1000), [&] {
      probe.stop();
      app.measuring = false;
      const auto& control_blocked = control.stop();
      const auto steps = training->lastProgress().step;
      training->cancelRun();  // the run stops at its next step; the window's destructor joins its thread
      nlohmann::json j = {{"case", "ui_latency"},
                          {"config", {{"train", "shipped recipe, batch 64, 112 px"},
                                      {"animation_words_per_s", 8},
                                      {"timer_ms", 1}}},
                          {"threads", threads.toInt()},
                          {"seconds", measure_s},
                          {"train_steps", steps},
                          {"snapshots", snapshots},
                          {"validations", validations},
                          {"start_blocked_ms", start_blocked_ms},
                          {"longest_gui_event_ms", app.longest_event_ms},
                          {"control_thread_max_blocked_ms", fovea::ui_bench::percentile(control_blocked, 1.0)},
                          {"control_thread_p99_blocked_ms", fovea::ui_bench::percentile(control_blocked, 0.99)}};
      j.update(probe.report());
      std::printf("%s\n", j.dump().c_str());
      std::fflush(stdout);
      QApplication::exit(0);
    });
  });
  start.start(50);
  return app.exec();
}

}  // namespace

int main(int argc, char** argv) {
  fovea::prepare_process(argc, argv);
  program_clock();
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM") && !qEnvironmentVariableIsSet("DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  TracingApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Fovea"));
  QApplication::setApplicationName(QStringLiteral("fovea-ui-bench"));
  QCommandLineParser cli;
  cli.setApplicationDescription(QStringLiteral("Longest GUI-thread block while training and a caption animation run"));
  cli.addHelpOption();
  const QCommandLineOption seconds(QStringLiteral("seconds"), QStringLiteral("Measured time"), QStringLiteral("s"), QStringLiteral("30"));
  const QCommandLineOption threads(QStringLiteral("threads"), QStringLiteral("Training threads"), QStringLiteral("n"), QStringLiteral("1"));
  const QCommandLineOption which(QStringLiteral("case"),
                                 QStringLiteral("training (a run trains while a caption animates), runs_folder (the "
                                                "training window opens a folder of --runs runs of --steps logged steps) "
                                                "or video (a 640x480 clip plays, captioned live with beam --beam)"),
                                 QStringLiteral("case"), QStringLiteral("training"));
  const QCommandLineOption runs(QStringLiteral("runs"), QStringLiteral("runs_folder: runs"), QStringLiteral("n"), QStringLiteral("50"));
  const QCommandLineOption steps(QStringLiteral("steps"), QStringLiteral("runs_folder: logged steps per run"), QStringLiteral("n"),
                                 QStringLiteral("10000"));
  const QCommandLineOption beam(QStringLiteral("beam"), QStringLiteral("video: beam width (1: greedy)"), QStringLiteral("k"), QStringLiteral("1"));
  cli.addOptions({seconds, threads, which, runs, steps, beam});
  cli.process(app);
  if (cli.value(which) == QLatin1String("runs_folder")) {
    return fovea::ui_bench::runs_folder_case(app, cli.value(runs).toInt(), cli.value(steps).toInt());
  }
  if (cli.value(which) == QLatin1String("video")) {
    return fovea::ui_bench::video_case(app, cli.value(seconds).toDouble(), cli.value(beam).toInt());
  }
  if (cli.value(which) != QLatin1String("training")) {
    std::fprintf(stderr, "fovea-ui-bench: --case: '%s' is not training, runs_folder or video\n", qPrintable(cli.value(which)));
    return 2;
  }
  return training_case(app, cli.value(seconds).toDouble(), cli.value(threads));
}
