#pragma once
/// One training run driven from the GUI: fovea::train / fovea::resume_training (the same core
/// functions `fovea train` calls) on a worker QThread. Records, progress and caption snapshots
/// come back as value structs through queued signals; pause and cancel are atomic flags the
/// trainer checks between steps (both write a checkpoint), so the GUI thread never waits on it.
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

#include "core/train/local_group.h"
#include "core/train/train_config.h"
#include "core/train/train_records.h"

class QThread;

namespace fovea::ui {

class TrainingRun : public QObject {
  Q_OBJECT
 public:
  /// Makes the GroupLauncher that starts the other processes of a run (core/train/local_group.h).
  /// The program hands one in (fovea-studio's main: launch/'s, which starts copies of the `fovea`
  /// tool); the ui itself starts no program.
  using LauncherFactory = std::function<std::unique_ptr<fovea::GroupLauncher>()>;
  /// The launcher every TrainingRun made afterwards starts with (none: a run of several processes
  /// fails, saying it needs one).
  static void setDefaultLauncher(LauncherFactory make);

  explicit TrainingRun(QObject* parent = nullptr);
  /// Stops a running run at its next step (a checkpoint is written) and joins the worker thread.
  /// The windows destroy it only once its run has ended (they close after `finished`).
  ~TrainingRun() override;

  /// Starts a new run in config.out_dir, trained by `processes` processes on this machine: this
  /// one and those the launcher starts (core/train/local_group.h), each on its share of every
  /// batch. Returns false (and emits failed) while one is running.
  bool start(const fovea::TrainConfig& config, int processes = 1);
  /// The launcher of this run's other processes (default: the one setDefaultLauncher gave).
  void setLauncher(LauncherFactory make) { make_launcher_ = std::move(make); }
  /// Continues the interrupted run in `run_dir` from its last checkpoint.
  bool resume(const QString& run_dir);
  void setPaused(bool paused);
  /// Stops at the next step; `finished` follows with interrupted = true. Never waits: the GUI
  /// thread goes on, and whoever must know when the run has stopped listens for finished/failed.
  void cancel();

  bool isRunning() const { return running_; }
  bool isPaused() const { return pause_.load(); }

 Q_SIGNALS:
  void started(const QString& run_dir);
  void record(const fovea::TrainRecord& record);
  void validation(const fovea::ValidationRecord& record);
  void pretrainRecord(const fovea::PretrainRecord& record);
  void progress(const fovea::TrainProgress& progress);
  void samples(const fovea::SampleRecord& record);
  void message(const QString& text);
  /// A non-finite step skipped or rolled back (the run's logs are then cut back to the
  /// checkpoint), a stop for one, or a loss spike.
  void event(const fovea::TrainEvent& event);
  /// The run ended: completed, stopped early, or cancelled (interrupted).
  void finished(const QString& run_dir, bool interrupted, const QString& summary);
  void failed(const QString& run_dir, const QString& error);

 private:
  class Worker;
  bool launch(const QString& run_dir, const std::function<void(Worker*)>& job);
  void ended(const QString& run_dir, bool interrupted, const QString& text, bool error);

  QThread* thread_ = nullptr;
  Worker* worker_ = nullptr;
  std::atomic<bool> stop_{false}, pause_{false};
  bool running_ = false;
  QString run_dir_;
  LauncherFactory make_launcher_;
};

}  // namespace fovea::ui

Q_DECLARE_METATYPE(fovea::TrainRecord)
Q_DECLARE_METATYPE(fovea::TrainEvent)
Q_DECLARE_METATYPE(fovea::ValidationRecord)
Q_DECLARE_METATYPE(fovea::PretrainRecord)
Q_DECLARE_METATYPE(fovea::TrainProgress)
Q_DECLARE_METATYPE(fovea::SampleRecord)
