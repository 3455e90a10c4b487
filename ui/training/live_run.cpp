// The training window's live run (live_run.h): the trainer's reports into the window's parts.
#include "ui/training/live_run.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

#include "ui/charts/training_dashboard.h"
#include "ui/training/run_list.h"
#include "ui/training/run_log_reader.h"
#include "ui/training/sample_gallery.h"
#include "ui/training/training_messages.h"
#include "ui/training/training_run.h"

namespace fovea::ui {

LiveRun::LiveRun(TrainingRun* training, TrainingDashboard* dashboard, RunList* runs, SampleGallery* gallery,
                 TrainingMessages* messages, QObject* parent)
    : QObject(parent), training_(training), dashboard_(dashboard), runs_(runs), gallery_(gallery), messages_(messages) {
  connect(training_, &TrainingRun::record, this, [this](const fovea::TrainRecord& r) { dashboard_->addTrainRecord(dir_, r); });
  connect(training_, &TrainingRun::validation, this, &LiveRun::showValidation);
  connect(training_, &TrainingRun::pretrainRecord, this,
          [this](const fovea::PretrainRecord& p) { dashboard_->addPretrainRecord(dir_, p); });
  connect(training_, &TrainingRun::progress, this, &LiveRun::showProgress);
  connect(training_, &TrainingRun::samples, this, &LiveRun::showSample);
  connect(training_, &TrainingRun::event, this, &LiveRun::showEvent);
}

bool LiveRun::isTraining(const QString& dir) const { return dir == dir_ && training_->isRunning(); }

bool LiveRun::running() const { return training_->isRunning(); }

void LiveRun::prepare(bool hard) {
  hard_ = hard;
  best_ = {};
}

void LiveRun::restore(const QString& dir, const fovea::RunLog& run) {
  hard_ = run.hard();
  best_ = run.best();
  dashboard_->removeRun(dir);
  dashboard_->loadRun(run);
  samples_ = run.samples;
}

bool LiveRun::begin(const QString& dir) {
  const auto clean = QDir::cleanPath(dir);
  const bool resumed = dir_ == clean || dashboard_->hasRun(clean);
  dir_ = clean;
  if (!resumed) samples_.clear();
  last_progress_ = {};
  dashboard_->addRun(dir_, QFileInfo(dir_).fileName(), hard_);
  return resumed;
}

void LiveRun::showValidation(const fovea::ValidationRecord& v) {
  dashboard_->addValidationRecord(dir_, v);
  best_.add(v);
  QString text = tr("validation after epoch %1: BLEU-4 %2, CIDEr-D %3").arg(v.epoch).arg(v.bleu[3], 0, 'f', 3).arg(v.cider, 0, 'f', 3);
  if (v.has_grounding) text += tr(", pointing %1%").arg(100 * v.pointing, 0, 'f', 1);
  if (v.has_faithfulness) text += tr(", faithful nouns %1%").arg(100 * v.faithful_rate, 0, 'f', 0);
  messages_->log(text + (v.improved ? QStringLiteral(" (%1)").arg(QString::fromStdString(improvement_note(v))) : QString()));
}

void LiveRun::showSample(const fovea::SampleRecord& s) {
  samples_.push_back(s);
  if (runs_->currentRun() == dir_ || runs_->currentRun().isEmpty()) gallery_->addRecord(s);
}

void LiveRun::showEvent(const fovea::TrainEvent& e) {
  if (e.action != "rollback") return dashboard_->addEvent(dir_, e);
  reload();  // the run went back to its last checkpoint: its curves too
}

void LiveRun::showProgress(const fovea::TrainProgress& p) {
  last_progress_ = p;
  QString line = hard_ ? tr("hard") : tr("soft");
  if (p.pretrain_step < p.pretrain_steps) line += tr(" · pretraining %1/%2").arg(p.pretrain_step).arg(p.pretrain_steps);
  else line += tr(" · step %1").arg(p.step);
  line += best_validation_text(best_);
  runs_->setLiveProgress(line, p.paused || training_->isPaused());  // paused, or pausing at the next step
  messages_->showProgress(p);
}

void LiveRun::reload() {
  const auto dir = dir_;
  read_run_log_async(this, dir, /*with_samples=*/false, [this, dir](const fovea::RunLog& run) {
    if (dir == dir_) dashboard_->loadRun(run);
  }, [this](const QString& error) { messages_->log(error); });
}

}  // namespace fovea::ui
