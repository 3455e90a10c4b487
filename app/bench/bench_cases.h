#pragma once
/// fovea bench's cases (app/bench/bench_cases.cpp); the options that fill BenchArgs are in app/cli/cmd_bench.cpp.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/runtime/data_paths.h"

namespace fovea::cli {

/// Seconds from `t0` to now on the steady clock: what every bench case times with.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct BenchArgs {
  std::vector<std::string> cases;
  int threads = 1, repeat = 5, warmup = 2, train_steps = 20, parts = 0;
  double ui_seconds = 30;
  std::string profile, precision = "fp32";
  std::string device = "cpu", model = default_model_path(), image = samples_dir() + "/test_00000.png";
  std::string backbone;  ///< corpus_epoch: a TorchScript backbone whose forward and cache build are timed
};

/// With a prefix, runs `fn` once more under the autograd profiler and writes PREFIX.<name>.json
/// (chrome://tracing: every op with its duration).
void profile_once(const std::string& prefix, const std::string& name, const std::function<void()>& fn);

/// corpus_epoch (app/bench/bench_corpus.cpp): a Flickr8k-sized epoch trained from cached annotations.
void bench_corpus_epoch(const BenchArgs* a);
/// self_critical_step (app/bench/bench_self_critical.cpp): a self-critical step beside a cross-entropy one.
void bench_self_critical_step(const BenchArgs* a);
/// op_count (app/bench/bench_op_count.cpp): kernel-launching operators per word on the device-generic path.
void bench_op_count(const std::string& device);

/// Every case run_bench knows, in the order it runs them.
const std::vector<std::string>& bench_case_names();

/// Runs the cases `args` asks for (all when none), one JSON line each on stdout; returns the exit code.
int run_bench(const BenchArgs& args);

}  // namespace fovea::cli
