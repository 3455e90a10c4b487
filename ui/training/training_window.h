#pragma once
/// fovea-studio's training window: launch a run (NewRunDialog → TrainingRun on its worker
/// thread), pause, resume or cancel it, watch its dashboards and caption snapshots live, and
/// overlay past runs of the runs folder. Closing it while a run trains asks first, then stops
/// the run at a checkpoint.
#include <QMainWindow>
#include <QMap>

#include <vector>

#include "core/train/train_config.h"
#include "core/train/run_log.h"
#include "core/train/train_records.h"

class QAction;
class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QSplitter;
class QProgressBar;
class QSlider;

namespace fovea::ui {

class LiveText;
class RunList;
struct RunCurves;
class SampleGallery;
class TrainingDashboard;
class TrainingRun;

class TrainingWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit TrainingWindow(QWidget* parent = nullptr);
  ~TrainingWindow() override;

  /// The one folder runs are listed from and new runs go to (remembered; Folder… in the run list changes it).
  void setRunsRoot(const QString& root);
  QString runsRoot() const { return runs_root_; }
  /// Opens the dialog; starts the run it describes when the user accepts. Returns whether one started.
  /// Opens New run (with the last run's settings, or `like`'s when given); false when cancelled.
  bool newRun(const QString& like = {});
  /// Starts the run with `processes` processes, or queues it while another trains (it starts when
  /// that one ends).
  bool startRun(const fovea::TrainConfig& config, int processes = 1);
  int queuedRuns() const { return int(queue_.size()); }
  /// Takes a queued run (by its folder) out of the queue; false when it is not queued.
  bool unqueueRun(const QString& dir);
  /// Continues an interrupted run: its log is read on a thread of its own, then the run resumes
  /// (false + message when it has no checkpoint). The live run, when paused: goes on.
  bool resumeRun(const QString& dir);
  /// Shows a past (or interrupted) run's dashboards without training, read on a thread of its own
  /// (they appear when read). False + message when the folder holds no run.
  bool openRun(const QString& dir);
  void setPaused(bool paused);
  /// Stops the run at its next step (a checkpoint is written; it can be resumed).
  void cancelRun();
  /// The toolbar's Stop: asks first (unless setConfirmStop(false)), then cancelRun().
  void askToStopRun();
  void setConfirmStop(bool confirm) { confirm_stop_ = confirm; }
  /// Every chart as PNG, SVG and CSV into `dir`; returns the files written.
  QStringList exportCharts(const QString& dir);
  /// Ask before closing while a run trains (tests turn it off; closing then stops the run).
  void setConfirmClose(bool confirm) { confirm_close_ = confirm; }
  /// Closed while a run trained: the window is hidden and the run is stopping at a checkpoint; it
  /// closes for good (and emits closedAfterStop) when the run has ended.
  bool isStoppingToClose() const { return closing_; }

  TrainingDashboard* dashboard() const { return dashboard_; }
  RunList* runList() const { return runs_; }
  SampleGallery* gallery() const { return gallery_; }
  TrainingRun* training() const { return training_; }
  QString statusText() const;
  /// The last progress report of the live run (step 0 before the first).
  fovea::TrainProgress lastProgress() const { return last_progress_; }
  QString logText() const;

 Q_SIGNALS:
  /// "Open best in explorer": the caption explorer should load this checkpoint.
  void openModelRequested(const QString& checkpoint);
  /// A close that had to stop a run first has completed.
  void closedAfterStop();

 protected:
  void closeEvent(QCloseEvent* event) override;
  /// The first time: the run list, the charts and the samples share the width 19:60:21.
  void showEvent(QShowEvent* event) override;

 private:
  void buildToolbar();
  void log(const QString& text);
  void showProgress(const fovea::TrainProgress& p);
  void runStarted(const QString& dir);
  void runEnded(const QString& dir, const QString& text, bool error);
  void showSamplesOf(const QString& dir);
  /// A past run's dashboards, ticked in the list; selected too (its samples shown) when `select`.
  void showRun(const QString& dir, const fovea::RunLog& log, const RunCurves& curves, bool select = true);
  /// New run, starting from `like`'s settings when given.
  bool newRunFrom(const fovea::TrainConfig* like);
  /// The run list's queued entries follow queue_.
  void showQueue();
  /// A rollback cut the live run's log back: its curves are read again (off the GUI thread).
  void reloadLiveRun();
  /// Selecting a run ticks it; the first listing of a folder with nothing ticked ticks the
  /// selected (or last) run, so the charts are never empty for no reason.
  void selectionChanged(const QString& dir);
  void tickOnOpen();
  void updateActions();
  void chooseRunFolder();
  void chooseExportFolder();

  TrainingRun* training_;
  TrainingDashboard* dashboard_;
  RunList* runs_;
  SampleGallery* gallery_;
  QPlainTextEdit* log_;
  LiveText* status_;  ///< changes at every step of a live run
  QProgressBar* progress_;
  QAction* new_action_ = nullptr;
  QAction* pause_action_ = nullptr;
  QAction* cancel_action_ = nullptr;
  QSlider* smoothing_ = nullptr;
  QLabel* smoothing_label_ = nullptr;
  QCheckBox* log_scale_ = nullptr;
  QString runs_root_, live_dir_;
  QSplitter* columns_ = nullptr;  ///< run list and log | charts | samples
  bool shown_before_ = false;
  bool auto_tick_ = false;  ///< tick a run when the folder's list arrives (nothing chosen since)
  int open_serial_ = 0;     ///< the last openRun(): the one whose samples show
  struct QueuedRun {
    fovea::TrainConfig config;
    int processes = 1;
  };
  QList<QueuedRun> queue_;  ///< runs to start, in order, as the current one ends
  bool live_hard_ = false;
  double live_best_bleu_ = -1;  ///< best validation BLEU-4 of the live run so far; < 0: none yet
  std::vector<fovea::SampleRecord> live_samples_;
  bool confirm_close_ = true;
  bool confirm_stop_ = true;
  bool closing_ = false;  ///< hidden, waiting for the stopped run's finished signal to close
  fovea::TrainProgress last_progress_;
};

}  // namespace fovea::ui
