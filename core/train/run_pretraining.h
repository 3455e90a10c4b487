#pragma once
/// The encoder's pretraining as the first phase of a run, before the first captioning step (the
/// steps themselves: core/train/encoder_pretraining.h): resumable at any checkpoint, its records in
/// metrics.jsonl, its held-out score in the run state.
#include <cstdint>
#include <functional>
#include <string>

#include <torch/torch.h>

#include "core/model/show_attend_tell.h"
#include "core/train/nonfinite.h"
#include "core/train/process_group.h"
#include "core/train/run_folder.h"
#include "core/train/run_state.h"
#include "core/train/trainer.h"

namespace fovea {

class EncoderPretraining;

/// What the phase asks of the run around it.
struct RunControl {
  std::function<bool()> stop;       ///< waits while paused; true: stop now
  std::function<void()> save_last;  ///< writes last.ckpt
  std::function<double()> elapsed;  ///< the run's training time so far
  std::function<void(const NamedValue&)> diverged;  ///< a non-finite value: ends the run (throws)
};

class RunPretraining {
 public:
  RunPretraining(const TrainConfig& config, CaptionModel& model, const TrainData& data, torch::Device device,
                 const TrainCallbacks& callbacks);

  /// Pretrains from state.pretrain_step up to `steps` in `precision`; false when stopped (last.ckpt
  /// then written). `total_steps` is the run's captioning steps, for the progress reports.
  bool run(RunState& state, std::int64_t steps, std::int64_t total_steps, const std::string& precision,
           RunFolder& folder, const RunControl& control);

 private:
  void message(const std::string& m) const;
  /// After the pretraining: how its class head names single items it never saw (the validation
  /// split's items), said and returned; -1 when the validation data are not the built-in scenes.
  double score_held_out(EncoderPretraining& pretraining);

  const TrainConfig& config_;
  CaptionModel& model_;
  const TrainData& data_;
  torch::Device device_;
  const TrainCallbacks& cb_;
};

}  // namespace fovea
