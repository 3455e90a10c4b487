#pragma once
/// The training window's live run: what its trainer reports (records, validations, samples,
/// events, progress) goes into the dashboards, the samples, the run list's line and the messages;
/// it keeps the live run's folder, attention kind, best validation so far and samples.
#include <QObject>
#include <QString>

#include <vector>

#include "core/train/run_log.h"
#include "core/train/train_records.h"

namespace fovea::ui {

class RunList;
class SampleGallery;
class TrainingDashboard;
class TrainingMessages;
class TrainingRun;

class LiveRun : public QObject {
  Q_OBJECT
 public:
  LiveRun(TrainingRun* training, TrainingDashboard* dashboard, RunList* runs, SampleGallery* gallery,
          TrainingMessages* messages, QObject* parent);

  /// The live run's folder (the last one started; it may have ended).
  QString dir() const { return dir_; }
  /// Whether `dir` is the run training now.
  bool isTraining(const QString& dir) const;
  /// Whether any run trains now.
  bool running() const;
  const std::vector<fovea::SampleRecord>& samples() const { return samples_; }
  /// The last progress report (step 0 before the first).
  fovea::TrainProgress lastProgress() const { return last_progress_; }
  /// A new run is about to start: hard attention or soft; no best validation yet.
  void prepare(bool hard);
  /// A run is about to resume: its log (cut back to its checkpoint) gives its curves and samples.
  void restore(const QString& dir, const fovea::RunLog& run);
  /// The trainer started `dir`: its dashboards are added (kept when resumed). Returns whether
  /// it resumed (the same run again, or one already shown).
  bool begin(const QString& dir);

 private:
  void showValidation(const fovea::ValidationRecord& v);
  void showSample(const fovea::SampleRecord& s);
  void showEvent(const fovea::TrainEvent& e);
  void showProgress(const fovea::TrainProgress& p);
  /// A rollback cut the live run's log back: its curves are read again (off the GUI thread).
  void reload();

  TrainingRun* training_;
  TrainingDashboard* dashboard_;
  RunList* runs_;
  SampleGallery* gallery_;
  TrainingMessages* messages_;
  QString dir_;
  bool hard_ = false;
  fovea::BestValidation best_;  ///< best.ckpt's validation in the live run so far
  std::vector<fovea::SampleRecord> samples_;
  fovea::TrainProgress last_progress_;
};

}  // namespace fovea::ui
