#pragma once
/// What a run about to start will take: its steps (pretraining and captioning, as the trainer
/// plans them) and, from the speed of past runs of the same model on this machine, its time.
/// For the New run dialog. Torch-free.
#include <QList>
#include <QString>
#include <QVector>

#include "core/train/train_config.h"
#include "ui/training/run_summary.h"

namespace fovea::ui {

class RunEstimate {
 public:
  /// The speeds of these past runs (their summaries, read off the GUI thread by the run list).
  explicit RunEstimate(const QList<RunSummary>& past_runs = {});
  /// "14000 pretraining + 2500 captioning steps (4 epochs of 625); about 35 min at the speed of
  /// run soft-1 (same model, batch and precision)", or without the time when no past run matches.
  QString describe(const fovea::TrainConfig& config) const;
  /// Seconds, or a negative number when no past run matches.
  double seconds(const fovea::TrainConfig& config) const;

 private:
  struct Speed {
    QString run;
    fovea::TrainConfig config;
    double pretrain_s = -1, caption_s = -1;  ///< seconds per step, -1 = not measured
  };
  const Speed* match(const fovea::TrainConfig& config) const;
  QVector<Speed> speeds_;
};

}  // namespace fovea::ui
