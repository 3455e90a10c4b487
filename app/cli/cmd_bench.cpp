// fovea bench: speed figures, one JSON object per case (app/bench/bench_cases.cpp runs them).
#include <CLI/CLI.hpp>

#include <memory>

#include "app/bench/bench_cases.h"
#include "app/cli/commands.h"

namespace fovea::cli {

Runner add_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  std::string names;
  for (const auto& name : bench_case_names()) names += (names.empty() ? "" : ", ") + name;
  app.add_option("--case", a->cases, "Cases to run (default all): " + names)->check(CLI::IsMember(bench_case_names()));
  app.add_option("--threads", a->threads, "CPU threads")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--repeat", a->repeat, "Timed runs per case (after warm-up; sgemm and heatmap_render at least 50)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--warmup", a->warmup, "Untimed runs first (and at least half a second of them when > 0)")->check(CLI::Range(0, 100))->capture_default_str();
  app.add_option("--train-steps", a->train_steps, "train_epoch_builtin, corpus_epoch: steps timed to estimate images/s")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--device", a->device, "cpu or cuda")->capture_default_str();
  app.add_option("--parts", a->parts,
                 "decoder_train_step* and train_epoch_builtin: parts of the batch decoded at once (0: one per thread, as `fovea train` does)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  app.add_option("--precision", a->precision,
                 "decoder_train_step*, encoder_train_step, train_epoch_builtin: fp32, or bf16 (CPU autocast: "
                 "matrix products and convolutions in bfloat16 with float accumulation, as fovea train --precision bf16)")
      ->check(CLI::IsMember({"fp32", "bf16"}))->capture_default_str();
  app.add_option("--model", a->model, "caption_end_to_end / heatmap: model file (default: $FOVEA_MODEL or the shipped soft model)");
  app.add_option("--image", a->image, "caption_end_to_end: image file (default: the first sample scene)");
  app.add_option("--backbone", a->backbone,
                 "corpus_epoch: a TorchScript backbone (tools/export_backbone.py) whose forward rate and annotation cache "
                 "build rate are measured beside the training rate");
  app.add_option("--ui-seconds", a->ui_seconds, "ui_latency: seconds measured")->check(CLI::Range(0.1, 3600.0))->capture_default_str();
  app.add_option("--profile", a->profile, "decoder_train_step*, beam_search, encoder_train_step and corpus_epoch: also write PREFIX.<case>.json, a chrome://tracing profile of one more run (step)");
  return [a]() -> int { return run_bench(*a); };
}

}  // namespace fovea::cli
