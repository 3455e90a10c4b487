#pragma once
/// What the run list and the New run dialog need to know of a run folder, read incrementally:
/// RunSummaryReader remembers how far it read each metrics.jsonl and reads only the lines added
/// since (a log that shrank, cut back by a resumed run, is read again from the start). Plain
/// values, so a worker thread reads and the GUI thread receives (run_scanner.h). Torch-free.
#include <QMetaType>
#include <QString>

#include <cstdint>
#include <map>
#include <string>

#include "core/train/train_config.h"
#include "core/train/train_records.h"

namespace fovea::ui {

struct RunSummary {
  QString dir;
  bool readable = false;  ///< the folder holds a metrics.jsonl
  QString error;          ///< why it is not readable
  bool has_config = false;
  fovea::TrainConfig config;
  bool hard = false;
  std::int64_t last_step = 0;  ///< the furthest step logged or checkpointed
  fovea::BestValidation best;  ///< best.ckpt's validation (metric empty: no validation yet)
  bool finished = false, failed = false;
  QString failure;
  bool has_last_checkpoint = false, has_best_checkpoint = false;
  /// For the time estimate: the last pretraining and captioning records' steps and elapsed seconds.
  std::int64_t pretrain_step = 0, train_step = 0;
  double pretrain_elapsed_s = 0, train_elapsed_s = 0;
  std::int64_t bytes_read = 0;  ///< bytes of metrics.jsonl the last update read (the new ones only)

  QString name() const;
};

/// " · BLEU-4 0.412" (or CIDEr-D, validation NLL: what best.ckpt is chosen by); empty before the
/// first validation. For the run list's lines.
QString best_validation_text(const fovea::BestValidation& best);

class RunSummaryReader {
 public:
  /// The run in `dir` as its files say now, reading only what was appended since the last call.
  RunSummary update(const QString& dir);

 private:
  struct State {
    std::int64_t offset = 0;  ///< bytes of metrics.jsonl consumed (whole lines)
    std::int64_t ckpt_mtime = -1;
    std::int64_t checkpoint_step = -1;
    RunSummary summary;
  };
  std::map<QString, State> states_;
};

}  // namespace fovea::ui

Q_DECLARE_METATYPE(fovea::ui::RunSummary)
