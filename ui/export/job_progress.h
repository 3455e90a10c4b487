#pragma once
/// A long job's progress dialog with Cancel (exporting a video, a folder's gallery): the job runs
/// on a worker thread and reports through reporter(); Cancel sets the stop flag the job reads at
/// its next report. It shows at once and stays until its owner deletes it (when the job ends).
#include <QProgressDialog>

#include <atomic>
#include <functional>
#include <memory>

namespace fovea::ui {

class JobProgress : public QProgressDialog {
  Q_OBJECT
 public:
  /// `total` units of work (0: unknown, a busy bar).
  JobProgress(const QString& title, const QString& label, long long total, QWidget* parent);

  /// Set by Cancel; a job may share it to stop for other reasons too (its window closing).
  std::shared_ptr<std::atomic<bool>> stopFlag() const { return stop_; }
  /// For the worker's thread: says `done` units are done (safe after the dialog is gone), and
  /// whether to go on (false once Cancel was pressed).
  std::function<bool(long long done)> reporter();

 private:
  std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace fovea::ui
