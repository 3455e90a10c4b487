#pragma once
/// fovea bench's cases (app/bench_cases.cpp); the options that fill BenchArgs are in cmd_bench.cpp.
#include <string>
#include <vector>

#include "core/runtime/data_paths.h"

namespace fovea::cli {

struct BenchArgs {
  std::vector<std::string> cases;
  int threads = 1, repeat = 5, warmup = 2, train_steps = 20, parts = 0;
  double ui_seconds = 30;
  std::string profile, precision = "fp32";
  std::string device = "cpu", model = default_model_path(), image = samples_dir() + "/test_00000.png";
};

/// Every case run_bench knows, in the order it runs them.
const std::vector<std::string>& bench_case_names();

/// Runs the cases `args` asks for (all when none), one JSON line each on stdout; returns the exit code.
int run_bench(const BenchArgs& args);

}  // namespace fovea::cli
