// TrainingWindow's requests for runs other than the live one's progress: a new run (from a past
// run's settings), taking one out of the queue, resuming and opening one. Every log is read on a
// thread of its own (run_log_reader.h); what was read arrives as a value and is used on the GUI
// thread.
#include <optional>

#include <QDir>
#include <QFileInfo>

#include <algorithm>

#include "core/io/checkpoint_header.h"
#include "core/train/run_log.h"
#include "ui/common/user_message.h"
#include "ui/training/live_run.h"
#include "ui/training/new_run_dialog.h"
#include "ui/training/run_browser.h"
#include "ui/training/run_list.h"
#include "ui/training/run_log_reader.h"
#include "ui/training/run_queue.h"
#include "ui/training/run_summary.h"
#include "ui/training/training_messages.h"
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

/// New run's dialog over `parent`, starting from `like`'s settings when given; the run to start, or
/// none when cancelled.
std::optional<RunQueue::Entry> ask_new_run(QWidget* parent, const QString& root, const QList<RunSummary>& past,
                                           const fovea::TrainConfig* like, bool queueing) {
  QDir().mkpath(root);
  NewRunDialog dialog(root, parent);
  dialog.setPastRuns(past);
  if (like) dialog.startFrom(*like);
  dialog.setQueueing(queueing);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return RunQueue::Entry{dialog.config(), dialog.processes()};
}

}  // namespace

bool TrainingWindow::newRun(const QString& like) {
  if (like.isEmpty()) {
    const auto run = ask_new_run(this, runs_root_, runs_->summaries(), nullptr, training_->isRunning());
    return run && startRun(run->config, run->processes);
  }
  const auto dir = QDir::cleanPath(like);
  const auto runs = runs_->summaries();  // read off the GUI thread by the run list
  const auto it = std::find_if(runs.begin(), runs.end(), [&](const RunSummary& r) { return r.dir == dir; });
  if (it != runs.end() && it->has_config) {
    const auto run = ask_new_run(this, runs_root_, runs, &it->config, training_->isRunning());
    return run && startRun(run->config, run->processes);
  }
  // Its summary has not arrived yet: its settings are read on a thread of their own, and the
  // dialog opens when they are here.
  messages_->setStatus(tr("Reading the settings of %1…").arg(QFileInfo(dir).fileName()));
  read_run_log_async(this, dir, /*with_samples=*/false, [this, like](const fovea::RunLog& run) {
    if (!run.has_config) return messages_->log(tr("%1: its settings are not known (no readable config.json)").arg(like));
    if (const auto next = ask_new_run(this, runs_root_, runs_->summaries(), &run.config, training_->isRunning()))
      startRun(next->config, next->processes);
  }, [this, like](const QString& error) {
    messages_->log(tr("%1: its settings are not known: %2").arg(like, error));
  });
  return false;
}

bool TrainingWindow::unqueueRun(const QString& dir) {
  const auto clean = QDir::cleanPath(dir);
  if (!queue_->remove(clean)) return false;
  const QString text = tr("Removed %1 from the queue (%2 queued).").arg(QFileInfo(clean).fileName()).arg(queue_->size());
  messages_->log(text);
  messages_->setStatus(text);  // not the line that still counted it queued
  return true;
}

bool TrainingWindow::resumeRun(const QString& dir) {
  const auto clean = QDir::cleanPath(dir);
  browser_->setAutoTick(false);
  if (training_->isRunning()) {
    if (clean != live_->dir()) {  // one run at a time
      const auto text = tr("%1 cannot resume while %2 trains; cancel that one first.")
                            .arg(QFileInfo(clean).fileName(), QFileInfo(live_->dir()).fileName());
      messages_->log(text);
      messages_->setStatus(text);
      return false;
    }
    if (training_->isPaused()) setPaused(false);  // the run list's Resume of the paused live run
    return true;
  }
  if (!QFileInfo::exists(QString::fromStdString(fovea::last_checkpoint_path(clean.toStdString())))) {
    messages_->log(tr("%1: cannot resume: it has no checkpoint").arg(clean));
    messages_->setStatus(tr("Cannot resume %1: it has no checkpoint").arg(clean));
    return false;
  }
  messages_->setStatus(tr("Reading %1 to resume it…").arg(QFileInfo(clean).fileName()));
  // On the worker: the log, cut back to what the last checkpoint saw.
  auto cut = [clean](fovea::RunLog& run) {
    const auto header = fovea::read_checkpoint_header(fovea::last_checkpoint_path(clean.toStdString()));
    const auto step = header.at("training").at("step").get<std::int64_t>();
    keep_up_to(run, step, header.at("training").value("pretrain_step", std::int64_t(0)));
  };
  read_run_log_async(this, clean, /*with_samples=*/true, [this, clean](const fovea::RunLog& run) {
    if (training_->isRunning()) return messages_->log(tr("%1: not resumed: another run started meanwhile").arg(clean));
    live_->restore(clean, run);
    training_->resume(clean);
  }, [this, clean](const QString& error) {
    messages_->log(tr("%1: cannot resume: %2").arg(clean, error));
    messages_->setStatus(tr("Cannot resume %1: %2").arg(clean, user_summary(error)));
  }, cut);
  return true;
}

bool TrainingWindow::openRun(const QString& dir) { return browser_->open(dir); }

}  // namespace fovea::ui
