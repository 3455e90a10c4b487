#include "ui/training/training_run.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QMetaObject>
#include <QThread>

#include <exception>
#include <functional>

#include "app/launch/local_processes.h"
#include "core/runtime/error_text.h"
#include "core/train/resume_settings.h"
#include "core/train/run_lock.h"
#include "core/train/trainer.h"
#include "ui/common/user_message.h"
#include "ui/training/thread_priority.h"

namespace fovea::ui {

/// Lives on the worker thread and runs one training job at a time. What the trainer reports is
/// posted to the TrainingRun on the GUI thread (queued), which emits it there.
class TrainingRun::Worker : public QObject {
 public:
  explicit Worker(TrainingRun* run) : run_(run) {}

  fovea::TrainCallbacks callbacks(const std::atomic<bool>* stop, const std::atomic<bool>* pause) {
    fovea::TrainCallbacks cb;
    cb.on_record = [this](const fovea::TrainRecord& r) { post([r](TrainingRun* t) { Q_EMIT t->record(r); }); };
    cb.on_validation = [this](const fovea::ValidationRecord& v) { post([v](TrainingRun* t) { Q_EMIT t->validation(v); }); };
    cb.on_pretrain_record = [this](const fovea::PretrainRecord& p) {
      post([p](TrainingRun* t) { Q_EMIT t->pretrainRecord(p); });
    };
    cb.on_progress = [this](const fovea::TrainProgress& p) { post([p](TrainingRun* t) { Q_EMIT t->progress(p); }); };
    cb.on_samples = [this](const fovea::SampleRecord& s) { post([s](TrainingRun* t) { Q_EMIT t->samples(s); }); };
    cb.on_message = [this](const std::string& m) {
      post([text = QString::fromStdString(m)](TrainingRun* t) { Q_EMIT t->message(text); });
    };
    cb.on_event = [this](const fovea::TrainEvent& e) { post([e](TrainingRun* t) { Q_EMIT t->event(e); }); };
    cb.stop = stop;
    cb.pause = pause;
    return cb;
  }

  /// `owns_folder`: the folder is this run's (resumed, or new and empty before it started), so a
  /// failure is recorded there; a run refused because the folder held another is not.
  void run(const QString& run_dir, const std::function<fovea::TrainResult()>& job, bool owns_folder) {
    try {
      const auto r = job();
      const auto text = summary(r);
      post([run_dir, r, text](TrainingRun* t) { t->ended(run_dir, r.interrupted, text, false); });
    } catch (const std::exception& e) {
      // The run folder says it failed, and why: the run list then offers no Resume for it.
      try {
        // Refused because another process writes the folder: it is not this run's to mark; a
        // resume refused before it started leaves the run as it was, resumable.
        if (owns_folder && dynamic_cast<const fovea::RunFolderBusy*>(&e) == nullptr &&
            dynamic_cast<const fovea::ResumeRefused*>(&e) == nullptr) {
          fovea::record_run_failure(run_dir.toStdString(), fovea::error_text(e));
        }
      } catch (const std::exception&) {
        // a folder that cannot be written to: the failure is still reported below
      }
      post([run_dir, error = user_text(e)](TrainingRun* t) { t->ended(run_dir, false, error, true); });
    }
  }

 private:
  template <typename F>
  void post(F f) {
    TrainingRun* run = run_;
    QMetaObject::invokeMethod(run, [run, f] { f(run); }, Qt::QueuedConnection);
  }

  static QString summary(const fovea::TrainResult& r) {
    if (r.interrupted) return TrainingRun::tr("Stopped at step %1; a checkpoint was written, resume it from the run list.").arg(r.steps);
    return TrainingRun::tr("Finished after %1 steps (%2 epochs) in %3 min; best validation BLEU-4 %4 at step %5%6.")
        .arg(r.steps)
        .arg(r.epochs_completed)
        .arg(r.elapsed_s / 60.0, 0, 'f', 1)
        .arg(r.best_bleu4, 0, 'f', 3)
        .arg(r.best_step)
        .arg(r.stopped_early ? TrainingRun::tr(" (early stopping)") : QString());
  }

  TrainingRun* run_;
};

namespace {

void register_types() {
  static const bool done = [] {
    qRegisterMetaType<fovea::TrainRecord>();
    qRegisterMetaType<fovea::TrainEvent>();
    qRegisterMetaType<fovea::ValidationRecord>();
    qRegisterMetaType<fovea::PretrainRecord>();
    qRegisterMetaType<fovea::TrainProgress>();
    qRegisterMetaType<fovea::SampleRecord>();
    return true;
  }();
  (void)done;
}

}  // namespace

TrainingRun::TrainingRun(QObject* parent) : QObject(parent) {
  register_types();
  thread_ = new QThread(this);
  thread_->setObjectName("fovea-training");
  worker_ = new Worker(this);
  worker_->moveToThread(thread_);
  connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_->start();
  // First thing on the worker thread: step aside for the GUI thread (see thread_priority.h).
  QMetaObject::invokeMethod(worker_, [] { lower_current_thread_priority(kTrainingThreadNice); }, Qt::QueuedConnection);
}

TrainingRun::~TrainingRun() {
  stop_ = true;
  pause_ = false;
  thread_->quit();
  thread_->wait();
}

void TrainingRun::ended(const QString& run_dir, bool interrupted, const QString& text, bool error) {
  running_ = false;
  pause_ = false;
  if (error) Q_EMIT failed(run_dir, text);
  else Q_EMIT finished(run_dir, interrupted, text);
}

bool TrainingRun::launch(const QString& run_dir, const std::function<void(Worker*)>& job) {
  if (running_) {
    Q_EMIT failed(run_dir, tr("%1: another run (%2) is still training; cancel it first").arg(run_dir, run_dir_));
    return false;
  }
  running_ = true;
  stop_ = false;
  pause_ = false;
  run_dir_ = run_dir;
  Worker* w = worker_;
  QMetaObject::invokeMethod(w, [w, job] { job(w); }, Qt::QueuedConnection);
  Q_EMIT started(run_dir);
  return true;
}

bool TrainingRun::start(const fovea::TrainConfig& config, int processes) {
  const auto dir = QString::fromStdString(config.out_dir);
  const auto tool = (tool_program_.isEmpty() ? QCoreApplication::applicationDirPath() + "/fovea" : tool_program_).toStdString();
  return launch(dir, [this, config, dir, processes, tool](Worker* w) {
    const auto cb = w->callbacks(&stop_, &pause_);
    const bool fresh = !QFileInfo::exists(QString::fromStdString(fovea::metrics_path(config.out_dir)));
    w->run(
        dir,
        [config, cb, processes, tool] {
          fovea::FoveaToolLauncher launcher(tool);
          return fovea::train_with_local_processes(config, cb, processes, launcher);
        },
        fresh);
  });
}

bool TrainingRun::resume(const QString& run_dir) {
  const auto dir = run_dir.toStdString();
  return launch(run_dir, [this, dir, run_dir](Worker* w) {
    const auto cb = w->callbacks(&stop_, &pause_);
    w->run(run_dir, [dir, cb] {
      fovea::clear_run_failure(dir);
      return fovea::resume_training(dir, cb);
    }, true);
  });
}

void TrainingRun::setPaused(bool paused) {
  if (running_) pause_ = paused;
}

void TrainingRun::cancel() {
  if (running_) stop_ = true;
}

}  // namespace fovea::ui

