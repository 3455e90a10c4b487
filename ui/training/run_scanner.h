#pragma once
/// Reads run folders' summaries on a worker thread (RunSummaryReader, incremental), so that a runs
/// folder of many long runs never blocks the GUI thread. Each summary arrives as a value through
/// a queued signal; scans run in the order asked, and the reader remembers every run's offset.
#include <QObject>
#include <QStringList>

#include "ui/training/run_summary.h"

class QThread;

namespace fovea::ui {

class RunScanner : public QObject {
  Q_OBJECT
 public:
  explicit RunScanner(QObject* parent = nullptr);
  /// Stops after the run being read and joins the worker (a summary takes milliseconds).
  ~RunScanner() override;

  /// Reads these runs (what was added since the last scan of each) on the worker.
  void scan(const QStringList& dirs);
  /// Scans asked for and not yet done.
  int pending() const { return pending_; }

 Q_SIGNALS:
  void summaryReady(const fovea::ui::RunSummary& summary);
  /// A scan() has delivered all its summaries.
  void scanned();

 private:
  class Worker;
  QThread* thread_;
  Worker* worker_;
  int pending_ = 0;
};

}  // namespace fovea::ui
