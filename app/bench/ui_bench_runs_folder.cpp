// fovea-ui-bench --case runs_folder. A 1 ms precise timer on the GUI thread records the gaps
// between its ticks from the moment the training window is created on a runs folder of `runs`
// runs x `steps` logged steps until every run's line is filled in (opening), then while the
// first run is ticked, its curves load and every chart has drawn them (ticking): the GUI thread's
// longest block, by phase (app/bench/ui_bench_gap_probe.h).
#include "app/bench/ui_bench_runs_folder.h"

#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QMainWindow>
#include <QPixmap>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/bench/ui_bench_gap_probe.h"
#include "core/train/run_log.h"
#include "core/train/train_config.h"
#include "core/train/train_records.h"
#include "ui/charts/metric_chart.h"
#include "ui/charts/training_dashboard.h"
#include "ui/training/run_list.h"
#include "ui/training/training_window.h"

namespace fovea::ui_bench {

namespace {

void write_runs(const QString& root, int runs, int steps) {
  for (int r = 0; r < runs; ++r) {
    const std::string dir = QDir(root).filePath(QStringLiteral("soft-%1").arg(r, 2, 10, QChar('0'))).toStdString();
    QDir().mkpath(QString::fromStdString(dir));
    fovea::TrainConfig config = fovea::recommended_train_config();
    config.out_dir = dir;
    std::ofstream(fovea::config_path(dir)) << fovea::to_json(config).dump(2) << "\n";
    std::ofstream metrics(fovea::metrics_path(dir));
    for (int s = 1; s <= steps; ++s) {
      fovea::TrainRecord t;
      t.step = s;
      t.epoch = s / 625;
      t.loss = 4.0 / (1 + 0.001 * s) + 0.01 * r;
      t.nll = t.loss;
      t.lr = 1e-3;
      t.grad_norm = 1.5;
      t.tokens_per_s = 9000;
      t.entropy = 2.0;
      t.elapsed_s = 0.05 * s;
      metrics << fovea::to_json(t).dump() << "\n";
      if (s % 1000 == 0) {
        fovea::ValidationRecord v;
        v.step = s;
        v.epoch = t.epoch;
        v.bleu[3] = 0.5 + 0.0001 * s / 10;
        v.cider = 1.0;
        metrics << fovea::to_json(v).dump() << "\n";
      }
    }
    std::ofstream(fovea::samples_path(dir));
  }
}

/// Whether every chart shown draws the points it holds of run `id` (its first redraw since they
/// arrived is done).
bool all_drawn(fovea::ui::TrainingDashboard* dashboard, const QString& id) {
  for (const auto& name : dashboard->shownCharts()) {
    const fovea::ui::MetricChart* chart = dashboard->chart(name);
    if (!chart->isVisible()) return false;
    for (const auto& key : chart->seriesKeys()) {
      if (key.startsWith(id + "|") && chart->pointCount(key) > 0 && chart->displayedPoints(key).isEmpty()) return false;
    }
  }
  return true;
}

/// fovea-studio opens the training window from the caption explorer, whose text has loaded the
/// font database (about 10 ms, once per process), whose toolbars have loaded the style's toolbar
/// parts (6 to 8 ms, once) and whose first frame has painted a scroll bar (5 to 10 ms the first
/// time, once) by then: the same is done here, or the training window would be charged with what
/// the explorer paid when the program started.
void warm_up_as_the_explorer_has() {
  QLabel warm(QStringLiteral("<b>Runs</b> 0.123"));
  (void)warm.sizeHint();
  QMainWindow warm_window;
  warm_window.addToolBar(QStringLiteral("warm"));
  QScrollBar bar(Qt::Vertical);
  bar.resize(16, 200);
  QPixmap painted(bar.size());
  bar.render(&painted);
}

}  // namespace

int runs_folder_case(QApplication& app, int runs, int steps) {
  QTemporaryDir tmp;
  QElapsedTimer setup;
  setup.start();
  write_runs(tmp.path(), runs, steps);
  const double setup_s = setup.elapsed() / 1000.0;

  warm_up_as_the_explorer_has();

  // Gaps by phase: creating the window, pointing it at the folder, showing it, the summaries
  // arriving; then ticking a run. Each phase starts on its own timer tick.
  GapProbe probe;
  probe.enter("creating_window");
  probe.start();

  fovea::ui::TrainingWindow* window = nullptr;
  QString first;
  QElapsedTimer opened;
  double open_s = 0, tick_s = 0, drawn_s = 0;
  QTimer step;
  int state = 0;
  bool reading = false;
  QObject::connect(&step, &QTimer::timeout, [&] {
    if (state == 0) {  // open the window on the folder, timed by the ticks around it
      // Each phase's action runs first in its tick, so the gap it causes is counted in it.
      opened.start();
      probe.enter("creating_window");
      window = new fovea::ui::TrainingWindow;
      window->setConfirmClose(false);
      state = -1;
    } else if (state == -1) {
      probe.enter("pointing_at_folder");
      window->setRunsRoot(tmp.path());
      state = -2;
    } else if (state == -2) {
      probe.enter("showing");
      window->show();
      state = 1;
    } else if (state == 1 && !reading) {
      reading = true;
      probe.enter("reading_summaries");
    } else if (state == 1 && !window->runList()->isReading() && window->runList()->summaries().size() == runs) {
      open_s = opened.elapsed() / 1000.0;
      probe.enter("ticking");
      first = window->runList()->runs().value(0);
      opened.restart();
      window->runList()->setChecked(first, true);  // as a click on its box does
      state = 2;
    } else if (state == 2 && window->dashboard()->pointCount(first, "nll") > 0) {
      tick_s = opened.elapsed() / 1000.0;  // the curves are in; the charts draw them one per pass
      state = 3;
    } else if (state == 3 && (all_drawn(window->dashboard(), first) || opened.elapsed() > 10000)) {
      drawn_s = opened.elapsed() / 1000.0;
      probe.stop();
      step.stop();
      nlohmann::json j = {{"case", "runs_folder"}, {"runs", runs},     {"steps_per_run", steps},
                          {"setup_s", setup_s},    {"open_s", open_s}, {"tick_s", tick_s},
                          {"drawn_s", drawn_s}};
      j.update(probe.report());
      std::printf("%s\n", j.dump().c_str());
      std::fflush(stdout);
      delete window;
      QApplication::exit(0);
    }
  });
  step.start(20);
  return app.exec();
}

}  // namespace fovea::ui_bench
