#pragma once
/// The runs of a runs folder (each a folder with metrics.jsonl, config and checkpoints), with a
/// checkbox per run to overlay its curves, a one-line summary each, and under them the actions
/// that act on the selected run (run_actions.h).
#include <QHash>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "ui/training/run_summary.h"

class QLabel;
class QListWidget;
class QListWidgetItem;

namespace fovea::ui {

class RunActions;
class RunScanner;

class RunList : public QWidget {
  Q_OBJECT
 public:
  explicit RunList(QWidget* parent = nullptr);

  void setRoot(const QString& root);
  QString root() const { return root_; }
  /// Rescans the root; check states and the selection survive. The folders are listed at once;
  /// their summaries are read on a worker thread (only what their logs gained since the last
  /// read) and fill the lines as they arrive (summariesReady when all have).
  void refresh();
  /// The runs' summaries read so far (for the New run dialog's time estimate).
  QList<RunSummary> summaries() const { return summaries_.values(); }
  /// Whether summaries are still being read.
  bool isReading() const;
  QStringList runs() const;
  QStringList checkedRuns() const;
  void setChecked(const QString& dir, bool checked);
  QString currentRun() const;
  void setCurrentRun(const QString& dir);
  /// The run training now (marked in the list; it cannot be resumed twice).
  void setLiveRun(const QString& dir);
  /// What the live run's line says between rescans ("soft · step 340 · BLEU-4 0.812"), and
  /// whether it is paused: its log on disk lags behind (and holds no step at all while the
  /// encoder pretrains).
  void setLiveProgress(const QString& line, bool paused = false);
  /// The live run is paused (or asked to pause): its Resume here is enabled, as the toolbar's.
  void setLivePaused(bool paused);
  /// Runs waiting for the live one to end, in order: listed after the runs, each removable.
  void setQueuedRuns(const QStringList& dirs);
  QStringList queuedRuns() const { return queued_; }
  QString summary(const QString& dir) const;
  /// The buttons acting on the selected run, and their requests.
  RunActions* actions() const { return actions_; }

 Q_SIGNALS:
  void runToggled(const QString& dir, bool checked);
  void currentRunChanged(const QString& dir);
  /// The user picked another runs folder with Folder… (the window then uses it for new runs too).
  void rootChosen(const QString& root);
  void summariesReady();

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  /// Reads the summaries of `dirs` on the worker; before the list's first paint, after it.
  void scan(const QStringList& dirs);
  void startWaitingScan();
  static constexpr int kFirstFrameWaitMs = 200;  ///< the longest a scan waits for the first paint

  QListWidgetItem* item(const QString& dir) const;
  void describe(QListWidgetItem* item) const;
  /// Offers the actions that can work on the selected run.
  void updateActions();
  void chooseRoot();

  void summaryArrived(const RunSummary& summary);

  RunScanner* scanner_;
  QHash<QString, RunSummary> summaries_;
  QString root_, live_, live_line_;
  QStringList queued_;
  bool live_paused_ = false;
  bool painted_ = false, scan_waits_ = false;
  QStringList waiting_dirs_;
  QLabel* root_label_;
  QListWidget* list_;
  RunActions* actions_;
};

}  // namespace fovea::ui
