#pragma once
/// The training window's toolbar: New run and Open run (asked of the window by signals), Pause and
/// Stop of the live run, and the charts' own buttons, which it handles itself: smoothing, log
/// scale, reset zoom and exporting every chart.
#include <QObject>
#include <QString>
#include <QStringList>

class QAction;
class QCheckBox;
class QLabel;
class QMainWindow;
class QSlider;
class QToolBar;

namespace fovea::ui {

class TrainingDashboard;
class TrainingMessages;

class TrainingToolbar : public QObject {
  Q_OBJECT
 public:
  /// Adds the toolbar to `window`; the chart buttons act on `dashboard`, and say what they did in `messages`.
  TrainingToolbar(QMainWindow* window, TrainingDashboard* dashboard, TrainingMessages* messages);

  /// Where Open run… and Export charts… start browsing.
  void setFolder(const QString& folder) { folder_ = folder; }
  /// Pause and Stop act only while a run trains.
  void setRunning(bool running);
  /// Pause shows `paused` (as Resume when paused) without asking to pause again.
  void showPaused(bool paused);
  /// A new run starts unpaused (unticking Pause, when ticked, asks the window to go on).
  void uncheckPause();
  /// Every chart as PNG, SVG and CSV into `dir`; returns the files written (errors go to the log).
  QStringList exportCharts(const QString& dir);

 Q_SIGNALS:
  void newRunRequested();
  /// Open run…: the folder chosen.
  void runFolderChosen(const QString& dir);
  void pauseToggled(bool paused);
  void stopRequested();

 private:
  void addChartButtons(QToolBar* tb);
  void chooseRunFolder();
  void chooseExportFolder();

  QMainWindow* window_;
  TrainingDashboard* dashboard_;
  TrainingMessages* messages_;
  QString folder_;
  QAction* new_action_ = nullptr;
  QAction* pause_action_ = nullptr;   ///< checkable: checked while the run is paused
  QAction* cancel_action_ = nullptr;  ///< "Stop": at the next step with a checkpoint
  QSlider* smoothing_ = nullptr;      ///< the curves' moving average, 0 to 0.99 in hundredths
  QLabel* smoothing_label_ = nullptr;
  QCheckBox* log_scale_ = nullptr;
};

}  // namespace fovea::ui
