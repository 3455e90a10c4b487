// fovea bench --case self_critical_step: a self-critical step (core/train/self_critical.h) beside a
// cross-entropy step of the same run, both from the shipped soft model with the shipped recipe, in
// one process: the samples and the greedy captions decoded, their CIDEr-D, and the teacher-forced
// pass over every sample, against the cross-entropy pass over one caption per image.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "app/bench/bench_cases.h"
#include "core/decode/captioner.h"
#include "core/train/self_critical.h"
#include "core/train/trainer.h"

namespace fovea::cli {

namespace {

/// Seconds per captioning step of `config` over a.train_steps steps after 5 warm-up ones.
double seconds_per_step(TrainConfig config, const BenchArgs* a) {
  config.max_steps = a->train_steps + 5;
  config.out_dir = (std::filesystem::temp_directory_path() / ("fovea-bench-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(config.out_dir);
  std::vector<double> at;
  TrainCallbacks cb;
  cb.on_progress = [&](const TrainProgress& p) {
    if (p.step > std::int64_t(at.size())) at.push_back(p.elapsed_s);
  };
  train(config, cb);
  std::filesystem::remove_all(config.out_dir);
  return at.size() > 6 ? (at.back() - at[5]) / double(at.size() - 6) : 0;
}

}  // namespace

void bench_self_critical_step(const BenchArgs* a) {
  Captioner shipped(a->model, "cpu");
  TrainConfig tc = recommended_train_config();
  tc.model = shipped.config();
  tc.init_from = a->model;
  tc.batch_size = 64;
  tc.val_scenes = 16;
  tc.epochs = 1;
  tc.device = a->device;
  tc.precision = a->precision;
  ::setenv("OMP_NUM_THREADS", std::to_string(a->threads).c_str(), 1);  // the trainer's thread count
  const double cross_entropy = seconds_per_step(tc, a);
  tc.self_critical = "greedy";
  const double self_critical = seconds_per_step(tc, a);
  std::cout << nlohmann::json({{"case", "self_critical_step"},
                               {"config", {{"model", a->model}, {"batch_images", tc.batch_size},
                                           {"samples_per_image", kSelfCriticalSamples}, {"baseline", "greedy"},
                                           {"precision", a->precision}, {"steps_timed", a->train_steps}}},
                               {"threads", a->threads},
                               {"cross_entropy_step_s", cross_entropy},
                               {"self_critical_step_s", self_critical},
                               {"ratio", cross_entropy > 0 ? self_critical / cross_entropy : 0}})
                   .dump()
            << std::endl;
}

}  // namespace fovea::cli
