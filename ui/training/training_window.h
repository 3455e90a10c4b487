#pragma once
/// fovea-studio's training window: launch a run (NewRunDialog → TrainingRun on its worker
/// thread), pause, resume or cancel it, watch its dashboards and caption snapshots live, and
/// overlay past runs of the runs folder. Closing it while a run trains asks first, then stops
/// the run at a checkpoint. Its parts own their state: TrainingToolbar, TrainingMessages (log,
/// status line, progress), RunQueue, LiveRun (the training run's reports) and RunBrowser (past runs).
#include <QMainWindow>

#include "core/train/train_config.h"
#include "core/train/train_records.h"

class QSplitter;

namespace fovea::ui {

class LiveRun;
class RunBrowser;
class RunList;
class RunQueue;
class SampleGallery;
class TrainingDashboard;
class TrainingMessages;
class TrainingRun;
class TrainingToolbar;

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
  int queuedRuns() const;
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
  fovea::TrainProgress lastProgress() const;
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
  void runStarted(const QString& dir);
  void runEnded(const QString& dir, const QString& text, bool error);

  TrainingRun* training_;
  TrainingDashboard* dashboard_;
  RunList* runs_;
  SampleGallery* gallery_;
  TrainingMessages* messages_;  ///< the log pane, the status line and the progress bar
  TrainingToolbar* toolbar_;
  RunQueue* queue_;             ///< runs to start, in order, as the current one ends
  LiveRun* live_;               ///< the run training (or the last one that did)
  RunBrowser* browser_;         ///< past runs ticked, selected or opened
  QString runs_root_;
  QSplitter* columns_ = nullptr;  ///< run list and log | charts | samples
  bool shown_before_ = false;
  bool confirm_close_ = true;
  bool confirm_stop_ = true;
  bool closing_ = false;  ///< hidden, waiting for the stopped run's finished signal to close
};

}  // namespace fovea::ui
