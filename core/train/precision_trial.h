#pragma once
/// How `--precision auto` chooses on the CPU. Without bf16 products (AVX-512 BF16, AMX) it is
/// fp32: emulated bf16 is slower. With them bf16 is faster on some CPUs and slower on others
/// (where OpenBLAS's fp32 products beat oneDNN's bf16 ones), so a run times its own step in each
/// precision before it starts and keeps the faster; the choice and the times are kept in its
/// checkpoints, and a resumed run keeps them.
#include <string>

#include <nlohmann/json.hpp>

namespace fovea {

/// The two precisions' times for one step (forward and backward, no optimiser step) of a run.
struct PrecisionTrial {
  double fp32_step_s = 0, bf16_step_s = 0;  ///< median seconds a step; 0: not timed
  bool timed() const { return fp32_step_s > 0 && bf16_step_s > 0; }
};

/// "bf16" where its step took at most kBf16Margin of fp32's time, else "fp32": where the two are
/// close, full precision.
inline constexpr double kBf16Margin = 0.95;
std::string faster_precision(const PrecisionTrial& trial);

/// "a step took 0.33 s in fp32 and 0.44 s in bf16"
std::string describe(const PrecisionTrial& trial);

nlohmann::json to_json(const PrecisionTrial& trial);
/// Absent fields are 0 (not timed).
PrecisionTrial precision_trial_from_json(const nlohmann::json& j);

}  // namespace fovea
