#pragma once
/// The training window's runs other than the live one's progress: a run ticked in the run list
/// (or opened from a folder) has its log read on a thread of its own and shown in the dashboards
/// when it arrives; the run selected shows its samples. The first listing of a folder with nothing
/// ticked ticks the selected (or last) run, so the charts are never empty for no reason.
#include <QObject>
#include <QString>

#include "core/train/run_log.h"

namespace fovea::ui {

class LiveRun;
class RunList;
struct RunCurves;
class SampleGallery;
class TrainingDashboard;
class TrainingMessages;

class RunBrowser : public QObject {
  Q_OBJECT
 public:
  RunBrowser(RunList* runs, TrainingDashboard* dashboard, SampleGallery* gallery, TrainingMessages* messages,
             const LiveRun* live, QObject* parent);

  /// Shows a past (or interrupted) run's dashboards without training (they appear when read).
  /// False + message when the folder holds no run.
  bool open(const QString& dir);
  /// Whether the next listing of the folder ticks a run (until the user chooses one).
  void setAutoTick(bool on) { auto_tick_ = on; }

 private:
  void toggled(const QString& dir, bool checked);
  /// A past run's dashboards, ticked in the list; selected too (its samples shown) when `select`.
  void show(const QString& dir, const fovea::RunLog& log, const RunCurves& curves, bool select);
  /// Selecting a run ticks it; an already ticked one shows its samples.
  void selectionChanged(const QString& dir);
  void tickOnOpen();
  void showSamplesOf(const QString& dir);

  RunList* runs_;
  TrainingDashboard* dashboard_;
  SampleGallery* gallery_;
  TrainingMessages* messages_;
  const LiveRun* live_;
  bool auto_tick_ = false;  ///< tick a run when the folder's list arrives (nothing chosen since)
  int open_serial_ = 0;     ///< the last open(): the one whose samples show
};

}  // namespace fovea::ui
