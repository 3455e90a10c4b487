#include "ui/training_run.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QThread>

#include <exception>

#include "core/trainer.h"

namespace fovea::ui {

/// Lives on the worker thread; runs one training job at a time.
class TrainingRun::Worker : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

 Q_SIGNALS:
  void record(const fovea::TrainRecord& record);
  void validation(const fovea::ValidationRecord& record);
  void progress(const fovea::TrainProgress& progress);
  void samples(const fovea::SampleRecord& record);
  void message(const QString& text);
  void finished(const QString& run_dir, bool interrupted, const QString& summary);
  void failed(const QString& run_dir, const QString& error);

 public:
  fovea::TrainCallbacks callbacks(const std::atomic<bool>* stop, const std::atomic<bool>* pause) {
    fovea::TrainCallbacks cb;
    cb.on_record = [this](const fovea::TrainRecord& r) { Q_EMIT record(r); };
    cb.on_validation = [this](const fovea::ValidationRecord& v) { Q_EMIT validation(v); };
    cb.on_progress = [this](const fovea::TrainProgress& p) { Q_EMIT progress(p); };
    cb.on_samples = [this](const fovea::SampleRecord& s) { Q_EMIT samples(s); };
    cb.on_message = [this](const std::string& m) { Q_EMIT message(QString::fromStdString(m)); };
    cb.stop = stop;
    cb.pause = pause;
    return cb;
  }

  void report(const QString& run_dir, const fovea::TrainResult& r) {
    QString summary;
    if (r.interrupted) {
      summary = tr("Stopped at step %1; a checkpoint was written, resume it from the run list.").arg(r.steps);
    } else {
      summary = tr("Finished after %1 steps (%2 epochs) in %3 min; best validation BLEU-4 %4 at step %5%6.")
                    .arg(r.steps)
                    .arg(r.epochs_completed)
                    .arg(r.elapsed_s / 60.0, 0, 'f', 1)
                    .arg(r.best_bleu4, 0, 'f', 3)
                    .arg(r.best_step)
                    .arg(r.stopped_early ? tr(" (early stopping)") : QString());
    }
    Q_EMIT finished(run_dir, r.interrupted, summary);
  }

  void run(const QString& run_dir, const std::function<fovea::TrainResult()>& job) {
    try {
      report(run_dir, job());
    } catch (const std::exception& e) {
      Q_EMIT failed(run_dir, QString::fromStdString(e.what()));
    }
  }
};

namespace {

void register_types() {
  static const bool done = [] {
    qRegisterMetaType<fovea::TrainRecord>();
    qRegisterMetaType<fovea::ValidationRecord>();
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
  worker_ = new Worker;
  worker_->moveToThread(thread_);
  connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
  connect(worker_, &Worker::record, this, &TrainingRun::record);
  connect(worker_, &Worker::validation, this, &TrainingRun::validation);
  connect(worker_, &Worker::progress, this, &TrainingRun::progress);
  connect(worker_, &Worker::samples, this, &TrainingRun::samples);
  connect(worker_, &Worker::message, this, &TrainingRun::message);
  connect(worker_, &Worker::finished, this, [this](const QString& dir, bool interrupted, const QString& summary) {
    running_ = false;
    pause_ = false;
    Q_EMIT finished(dir, interrupted, summary);
  });
  connect(worker_, &Worker::failed, this, [this](const QString& dir, const QString& error) {
    running_ = false;
    pause_ = false;
    Q_EMIT failed(dir, error);
  });
  thread_->start();
}

TrainingRun::~TrainingRun() {
  stop_ = true;
  pause_ = false;
  thread_->quit();
  thread_->wait();
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

bool TrainingRun::start(const fovea::TrainConfig& config) {
  const auto dir = QString::fromStdString(config.out_dir);
  return launch(dir, [this, config, dir](Worker* w) {
    const auto cb = w->callbacks(&stop_, &pause_);
    w->run(dir, [config, cb] { return fovea::train(config, cb); });
  });
}

bool TrainingRun::resume(const QString& run_dir) {
  const auto dir = run_dir.toStdString();
  return launch(run_dir, [this, dir, run_dir](Worker* w) {
    const auto cb = w->callbacks(&stop_, &pause_);
    w->run(run_dir, [dir, cb] { return fovea::resume_training(dir, cb); });
  });
}

void TrainingRun::setPaused(bool paused) {
  if (running_) pause_ = paused;
}

void TrainingRun::cancel() {
  if (running_) stop_ = true;
}

void TrainingRun::wait() {
  while (running_) {
    QThread::msleep(10);
    QCoreApplication::sendPostedEvents(this);
  }
}

}  // namespace fovea::ui

#include "training_run.moc"
