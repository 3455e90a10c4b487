// fovea pretrain-encoder: the built-in CNN pretrained on single Fashion-MNIST items, written as
// the encoder file `fovea train --backbone` starts from (the shipped one: models/fashion-encoder.pt).
#include <CLI/CLI.hpp>

#include <memory>

#include "app/cli/commands.h"
#include "app/cli/option_checks.h"
#include "app/cli/progress_bar.h"
#include "app/cli/stop_signal.h"
#include "core/train/train_settings.h"
#include "core/train/trainer.h"

namespace fovea::cli {

namespace {

struct PretrainArgs {
  std::string out, run = "runs/pretrain-encoder";
  std::int64_t steps = kEncoderPretrainSteps;
  std::uint64_t seed = 1;
  std::string device = "auto", precision = "auto";
};

}  // namespace

Runner add_pretrain_encoder_command(CLI::App& app) {
  auto a = std::make_shared<PretrainArgs>();
  app.add_option("--out", a->out, "The encoder file to write (fovea train --backbone FILE starts from it)")->required();
  app.add_option("--run", a->run,
                 "Run folder for the pretraining's metrics and checkpoints; one that holds a pretraining is resumed")
      ->capture_default_str();
  app.add_option("--steps", a->steps, "Steps of " + std::to_string(kPretrainBatch) + " single items")
      ->check(at_least(1))
      ->capture_default_str();
  app.add_option("--seed", a->seed, "Seed of the weights and the items drawn")->check(at_least(0))->capture_default_str();
  app.add_option("--device", a->device, train_setting("device").help)->capture_default_str();
  app.add_option("--precision", a->precision, train_setting("precision").help)
      ->check(CLI::IsMember({"auto", "fp32", "bf16"}))
      ->capture_default_str();
  return [a]() -> int {
    TrainConfig config = recommended_train_config();
    config.backbone.clear();  // the built-in CNN, untrained
    config.pretrain_steps = a->steps;
    config.out_dir = a->run;
    config.seed = a->seed;
    config.device = a->device;
    config.precision = a->precision;
    ProgressBar bar;
    TrainCallbacks cb;
    cb.on_progress = [&](const TrainProgress& p) {
      bar.update("encoder pretraining", p.pretrain_step, p.pretrain_steps, p.loss, 0, p.eta_s);
    };
    cb.on_message = [&](const std::string& m) { bar.message(m); };
    cb.stop = stop_on_interrupt();
    const auto r = pretrain_encoder_to_file(config, a->out, cb);
    bar.finish();
    if (r.interrupted) {
      std::fprintf(stderr, "interrupted after %lld steps; the same command goes on from %s\n",
                   (long long)r.pretrain_steps, r.last_checkpoint.c_str());
      return 130;
    }
    return 0;
  };
}

}  // namespace fovea::cli
