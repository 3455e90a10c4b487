// The training window's past runs in the dashboards (run_browser.h). Every log is read on a
// thread of its own (run_log_reader.h); what was read arrives as a value and is shown on the GUI
// thread.
#include "ui/training/run_browser.h"

#include <memory>

#include <QDir>
#include <QFileInfo>

#include "ui/charts/run_curves.h"
#include "ui/charts/training_dashboard.h"
#include "ui/common/user_message.h"
#include "ui/training/live_run.h"
#include "ui/training/run_list.h"
#include "ui/training/run_log_reader.h"
#include "ui/training/sample_gallery.h"
#include "ui/training/training_messages.h"

namespace fovea::ui {

RunBrowser::RunBrowser(RunList* runs, TrainingDashboard* dashboard, SampleGallery* gallery, TrainingMessages* messages,
                       const LiveRun* live, QObject* parent)
    : QObject(parent), runs_(runs), dashboard_(dashboard), gallery_(gallery), messages_(messages), live_(live) {
  connect(runs_, &RunList::runToggled, this, &RunBrowser::toggled);
  connect(runs_, &RunList::currentRunChanged, this, &RunBrowser::selectionChanged);
  connect(runs_, &RunList::summariesReady, this, &RunBrowser::tickOnOpen);
}

void RunBrowser::toggled(const QString& dir, bool checked) {
  if (!checked) return dashboard_->removeRun(dir);
  auto_tick_ = false;
  if (live_->isTraining(dir)) return;
  dashboard_->reserveColour(dir);  // the tick order's colour, whichever reading ends first
  // Read on a thread of its own; shown when it arrives, if the run is still ticked then.
  messages_->setStatus(tr("Reading %1…").arg(QFileInfo(dir).fileName()));
  const auto current = runs_->currentRun();
  auto curves = std::make_shared<RunCurves>();  // built on the reading thread
  read_run_log_async(this, dir, /*with_samples=*/true, [this, dir, current, curves](const fovea::RunLog& log) {
    // Selected too, unless the user selected another run meanwhile.
    if (runs_->checkedRuns().contains(dir)) show(dir, log, *curves, runs_->currentRun() == current || runs_->currentRun() == dir);
  }, [this](const QString& error) {
    messages_->log(error);
    messages_->setStatus(user_summary(error));
  }, [curves](fovea::RunLog& log) { *curves = run_curves(log); });
}

bool RunBrowser::open(const QString& dir) {
  const auto clean = QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
  auto_tick_ = false;
  if (live_->isTraining(clean)) return true;
  if (!QFileInfo::exists(QString::fromStdString(fovea::metrics_path(clean.toStdString())))) {
    const auto text = tr("%1 is not a run folder: it holds no metrics.jsonl").arg(clean);
    messages_->log(text);
    messages_->setStatus(text);
    return false;
  }
  messages_->setStatus(tr("Reading %1…").arg(QFileInfo(clean).fileName()));
  dashboard_->reserveColour(clean);  // the order opened gives the colours, whichever log arrives first
  const int serial = ++open_serial_;
  auto curves = std::make_shared<RunCurves>();  // built on the reading thread
  read_run_log_async(this, clean, /*with_samples=*/true, [this, clean, serial, curves](const fovea::RunLog& run) {
    show(clean, run, *curves, serial == open_serial_);  // the last one opened is the one selected
  }, [this](const QString& error) {
    messages_->log(error);
    messages_->setStatus(user_summary(error));
  }, [curves](fovea::RunLog& run) { *curves = run_curves(run); });
  return true;
}

void RunBrowser::show(const QString& clean, const fovea::RunLog& log_data, const RunCurves& curves, bool select) {
  dashboard_->removeRun(clean);
  dashboard_->loadCurves(curves);
  if (!runs_->runs().contains(clean)) runs_->setRoot(QFileInfo(clean).absolutePath());
  runs_->blockSignals(true);
  runs_->setChecked(clean, true);
  runs_->blockSignals(false);
  // Never taken from the live run: its read may arrive after a run started.
  if (select && !live_->isTraining(runs_->currentRun())) runs_->setCurrentRun(clean);
  if (runs_->currentRun() == clean) gallery_->setHistory(log_data.samples);
  if (log_data.skipped_lines > 0) {
    messages_->log(tr("%1: skipped %2 unreadable line(s) (a crash mid-write)").arg(clean).arg(log_data.skipped_lines));
  }
  messages_->setStatus(tr("%1: %2 steps logged, %3 validations").arg(QFileInfo(clean).fileName())
                           .arg(log_data.last_step()).arg(log_data.val.size()));
}

void RunBrowser::selectionChanged(const QString& dir) {
  if (!dir.isEmpty() && runs_->runs().contains(dir) && !runs_->checkedRuns().contains(dir)) {
    auto_tick_ = false;
    runs_->setChecked(dir, true);  // its curves are read and shown, its samples with them
    return;
  }
  showSamplesOf(dir);
}

void RunBrowser::tickOnOpen() {
  if (!auto_tick_ || live_->running() || !runs_->checkedRuns().isEmpty()) return;
  const auto runs = runs_->runs();
  if (runs.isEmpty()) return;
  auto_tick_ = false;
  const auto dir = runs.contains(runs_->currentRun()) ? runs_->currentRun() : runs.last();
  runs_->setChecked(dir, true);
  runs_->setCurrentRun(dir);
}

void RunBrowser::showSamplesOf(const QString& dir) {
  if (live_->isTraining(dir)) {
    gallery_->setHistory(live_->samples());
    return;
  }
  if (!dir.isEmpty() && !runs_->runs().contains(dir)) {  // a queued run: nothing written yet
    gallery_->clear(tr("%1 is queued: its samples appear here once it trains, after the run training now.")
                        .arg(QFileInfo(dir).fileName()));
    return;
  }
  gallery_->clear();
  if (dir.isEmpty()) return;
  read_run_log_async(this, dir, /*with_samples=*/true, [this, dir](const fovea::RunLog& run) {
    if (runs_->currentRun() == dir && !live_->isTraining(dir)) gallery_->setHistory(run.samples);
  });
}

}  // namespace fovea::ui
