#include "ui/training/training_run.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QThread>

#include <exception>
#include <functional>

#include "core/runtime/error_text.h"
#include "core/train/training_job.h"
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

  /// Runs the request (core/train/training_job.h: a failed run says so in its folder) and reports
  /// how it ended.
  void run(const fovea::TrainingRequest& request, const fovea::TrainCallbacks& cb) {
    const auto run_dir = QString::fromStdString(fovea::training_folder(request));
    try {
      const auto r = fovea::run_training_job(request, cb);
      const auto text = summary(r);
      post([run_dir, r, text](TrainingRun* t) { t->ended(run_dir, r.interrupted, text, false); });
    } catch (const std::exception& e) {
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
    return TrainingRun::tr("Finished after %1 steps (%2 epochs) in %3 min; best validation %4 %5 at step %6%7.")
        .arg(r.steps)
        .arg(r.epochs_completed)
        .arg(r.elapsed_s / 60.0, 0, 'f', 1)
        .arg(QString::fromStdString(r.best_metric.empty() ? std::string("BLEU-4") : r.best_metric))
        .arg(r.best_metric.empty() ? r.best_bleu4 : r.best_score, 0, 'f', 3)
        .arg(r.best_step)
        .arg(r.stopped_early ? TrainingRun::tr(" (early stopping)") : QString());
  }

  TrainingRun* run_;
};

namespace {

TrainingRun::LauncherFactory& default_launcher() {
  static TrainingRun::LauncherFactory make;
  return make;
}

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

void TrainingRun::setDefaultLauncher(LauncherFactory make) { default_launcher() = std::move(make); }

TrainingRun::TrainingRun(QObject* parent) : QObject(parent), make_launcher_(default_launcher()) {
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
  return launch(dir, [this, config, processes, make = make_launcher_](Worker* w) {
    const auto launcher = processes > 1 && make ? make() : nullptr;
    fovea::TrainingRequest request;
    request.config = config;
    request.processes = processes;
    request.launcher = launcher.get();
    w->run(request, w->callbacks(&stop_, &pause_));
  });
}

bool TrainingRun::resume(const QString& run_dir) {
  const auto dir = run_dir.toStdString();
  return launch(run_dir, [this, dir](Worker* w) {
    fovea::TrainingRequest request;
    request.resume = dir;
    w->run(request, w->callbacks(&stop_, &pause_));
  });
}

void TrainingRun::setPaused(bool paused) {
  if (running_) pause_ = paused;
}

void TrainingRun::cancel() {
  if (running_) stop_ = true;
}

}  // namespace fovea::ui

