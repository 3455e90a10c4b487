// TrainingWindow's runs other than the live one's progress: opening, resuming and selecting runs,
// the queue, and reading a run's log again after a rollback. Every log is read on a thread of its
// own (run_log_reader.h); what was read arrives as a value and is shown on the GUI thread.
#include <memory>

#include <QDir>
#include <QFileInfo>
#include <QPlainTextEdit>

#include <algorithm>
#include <exception>

#include "core/io/checkpoint_header.h"
#include "core/train/run_log.h"
#include "ui/charts/run_curves.h"
#include "ui/charts/training_dashboard.h"
#include "ui/common/user_message.h"
#include "ui/common/live_text.h"
#include "ui/training/new_run_dialog.h"
#include "ui/training/run_list.h"
#include "ui/training/run_log_reader.h"
#include "ui/training/sample_gallery.h"
#include "ui/training/training_run.h"
#include "ui/training/training_window.h"

namespace fovea::ui {

namespace {

/// The run's records up to `step` and `pretrain_step` (what its last checkpoint saw; resuming drops the rest).
void keep_up_to(fovea::RunLog& log, std::int64_t step, std::int64_t pretrain_step) {
  auto after = [step](const auto& r) { return r.step > step; };
  log.pretrain.erase(std::remove_if(log.pretrain.begin(), log.pretrain.end(),
                                    [&](const fovea::PretrainRecord& p) { return p.pretrain_step > pretrain_step; }),
                     log.pretrain.end());
  log.train.erase(std::remove_if(log.train.begin(), log.train.end(), after), log.train.end());
  log.val.erase(std::remove_if(log.val.begin(), log.val.end(), after), log.val.end());
  log.samples.erase(std::remove_if(log.samples.begin(), log.samples.end(), after), log.samples.end());
}

QString clean_dir(const QString& dir) { return QDir::cleanPath(QFileInfo(dir).absoluteFilePath()); }

}  // namespace

bool TrainingWindow::newRun(const QString& like) {
  if (like.isEmpty()) return newRunFrom(nullptr);
  const auto dir = QDir::cleanPath(like);
  const auto runs = runs_->summaries();  // read off the GUI thread by the run list
  const auto it = std::find_if(runs.begin(), runs.end(), [&](const RunSummary& r) { return r.dir == dir; });
  if (it != runs.end() && it->has_config) return newRunFrom(&it->config);
  // Its summary has not arrived yet: its settings are read on a thread of their own, and the
  // dialog opens when they are here.
  status_->setText(tr("Reading the settings of %1…").arg(QFileInfo(dir).fileName()));
  read_run_log_async(this, dir, /*with_samples=*/false, [this, like](const fovea::RunLog& run) {
    if (run.has_config) newRunFrom(&run.config);
    else log(tr("%1: its settings are not known (no readable config.json)").arg(like));
  }, [this, like](const QString& error) {
    log(tr("%1: its settings are not known: %2").arg(like, error));
  });
  return false;
}

bool TrainingWindow::newRunFrom(const fovea::TrainConfig* like) {
  QDir().mkpath(runs_root_);
  NewRunDialog dialog(runs_root_, this);
  dialog.setPastRuns(runs_->summaries());
  if (like) dialog.startFrom(*like);
  dialog.setQueueing(training_->isRunning());
  if (dialog.exec() != QDialog::Accepted) return false;
  return startRun(dialog.config(), dialog.processes());
}

bool TrainingWindow::unqueueRun(const QString& dir) {
  const auto clean = QDir::cleanPath(dir);
  for (int i = 0; i < int(queue_.size()); ++i) {
    if (QDir::cleanPath(QString::fromStdString(queue_[i].config.out_dir)) != clean) continue;
    queue_.removeAt(i);
    const QString text = tr("Removed %1 from the queue (%2 queued).").arg(QFileInfo(clean).fileName()).arg(queue_.size());
    log(text);
    status_->setText(text);  // not the line that still counted it queued
    showQueue();
    return true;
  }
  return false;
}

void TrainingWindow::showQueue() {
  QStringList dirs;
  for (const auto& q : queue_) dirs << QString::fromStdString(q.config.out_dir);
  runs_->setQueuedRuns(dirs);
}

bool TrainingWindow::resumeRun(const QString& dir) {
  const auto clean = QDir::cleanPath(dir);
  auto_tick_ = false;
  if (training_->isRunning()) {
    if (clean != live_dir_) {  // one run at a time
      const auto text = tr("%1 cannot resume while %2 trains; cancel that one first.")
                            .arg(QFileInfo(clean).fileName(), QFileInfo(live_dir_).fileName());
      log(text);
      status_->setText(text);
      return false;
    }
    if (training_->isPaused()) setPaused(false);  // the run list's Resume of the paused live run
    return true;
  }
  if (!QFileInfo::exists(QString::fromStdString(fovea::last_checkpoint_path(clean.toStdString())))) {
    log(tr("%1: cannot resume: it has no checkpoint").arg(clean));
    status_->setText(tr("Cannot resume %1: it has no checkpoint").arg(clean));
    return false;
  }
  status_->setText(tr("Reading %1 to resume it…").arg(QFileInfo(clean).fileName()));
  // On the worker: the log, cut back to what the last checkpoint saw.
  auto cut = [clean](fovea::RunLog& run) {
    const auto header = fovea::read_checkpoint_header(fovea::last_checkpoint_path(clean.toStdString()));
    const auto step = header.at("training").at("step").get<std::int64_t>();
    keep_up_to(run, step, header.at("training").value("pretrain_step", std::int64_t(0)));
  };
  read_run_log_async(this, clean, /*with_samples=*/true, [this, clean](const fovea::RunLog& run) {
    if (training_->isRunning()) return log(tr("%1: not resumed: another run started meanwhile").arg(clean));
    live_hard_ = run.hard();
    live_best_bleu_ = run.val.empty() ? -1 : run.best_bleu4();
    dashboard_->removeRun(clean);
    dashboard_->loadRun(run);
    live_samples_ = run.samples;
    training_->resume(clean);
  }, [this, clean](const QString& error) {
    log(tr("%1: cannot resume: %2").arg(clean, error));
    status_->setText(tr("Cannot resume %1: %2").arg(clean, user_summary(error)));
  }, cut);
  return true;
}

bool TrainingWindow::openRun(const QString& dir) {
  const auto clean = clean_dir(dir);
  auto_tick_ = false;
  if (clean == live_dir_ && training_->isRunning()) return true;
  if (!QFileInfo::exists(QString::fromStdString(fovea::metrics_path(clean.toStdString())))) {
    const auto text = tr("%1 is not a run folder: it holds no metrics.jsonl").arg(clean);
    log(text);
    status_->setText(text);
    return false;
  }
  status_->setText(tr("Reading %1…").arg(QFileInfo(clean).fileName()));
  dashboard_->reserveColour(clean);  // the order opened gives the colours, whichever log arrives first
  const int serial = ++open_serial_;
  auto curves = std::make_shared<RunCurves>();  // built on the reading thread
  read_run_log_async(this, clean, /*with_samples=*/true, [this, clean, serial, curves](const fovea::RunLog& run) {
    showRun(clean, run, *curves, serial == open_serial_);  // the last one opened is the one selected
  }, [this](const QString& error) {
    log(error);
    status_->setText(user_summary(error));
  }, [curves](fovea::RunLog& run) { *curves = run_curves(run); });
  return true;
}

void TrainingWindow::showRun(const QString& clean, const fovea::RunLog& log_data, const RunCurves& curves, bool select) {
  dashboard_->removeRun(clean);
  dashboard_->loadCurves(curves);
  if (!runs_->runs().contains(clean)) runs_->setRoot(QFileInfo(clean).absolutePath());
  runs_->blockSignals(true);
  runs_->setChecked(clean, true);
  runs_->blockSignals(false);
  // Never taken from the live run: its read may arrive after a run started.
  if (select && !(training_->isRunning() && runs_->currentRun() == live_dir_)) runs_->setCurrentRun(clean);
  if (runs_->currentRun() == clean) gallery_->setHistory(log_data.samples);
  if (log_data.skipped_lines > 0) {
    log(tr("%1: skipped %2 unreadable line(s) (a crash mid-write)").arg(clean).arg(log_data.skipped_lines));
  }
  status_->setText(tr("%1: %2 steps logged, %3 validations").arg(QFileInfo(clean).fileName())
                       .arg(log_data.last_step()).arg(log_data.val.size()));
}

void TrainingWindow::selectionChanged(const QString& dir) {
  if (!dir.isEmpty() && runs_->runs().contains(dir) && !runs_->checkedRuns().contains(dir)) {
    auto_tick_ = false;
    runs_->setChecked(dir, true);  // its curves are read and shown, its samples with them
    return;
  }
  showSamplesOf(dir);
}

void TrainingWindow::tickOnOpen() {
  if (!auto_tick_ || training_->isRunning() || !runs_->checkedRuns().isEmpty()) return;
  const auto runs = runs_->runs();
  if (runs.isEmpty()) return;
  auto_tick_ = false;
  const auto dir = runs.contains(runs_->currentRun()) ? runs_->currentRun() : runs.last();
  runs_->setChecked(dir, true);
  runs_->setCurrentRun(dir);
}

void TrainingWindow::showSamplesOf(const QString& dir) {
  if (dir == live_dir_ && training_->isRunning()) {
    gallery_->setHistory(live_samples_);
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
    if (runs_->currentRun() == dir && !(dir == live_dir_ && training_->isRunning())) gallery_->setHistory(run.samples);
  });
}

void TrainingWindow::reloadLiveRun() {
  const auto dir = live_dir_;
  read_run_log_async(this, dir, /*with_samples=*/false, [this, dir](const fovea::RunLog& run) {
    if (dir == live_dir_) dashboard_->loadRun(run);
  }, [this](const QString& error) { log(error); });
}

}  // namespace fovea::ui
