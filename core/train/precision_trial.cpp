#include "core/train/precision_trial.h"

#include <iomanip>
#include <sstream>

namespace fovea {

std::string faster_precision(const PrecisionTrial& trial) {
  return trial.timed() && trial.bf16_step_s <= kBf16Margin * trial.fp32_step_s ? "bf16" : "fp32";
}

std::string describe(const PrecisionTrial& trial) {
  std::ostringstream s;
  s << std::setprecision(trial.fp32_step_s < 0.1 || trial.bf16_step_s < 0.1 ? 2 : 3) << "a step took "
    << trial.fp32_step_s << " s in fp32 and " << trial.bf16_step_s << " s in bf16";
  return s.str();
}

nlohmann::json to_json(const PrecisionTrial& trial) {
  return {{"fp32_step_s", trial.fp32_step_s}, {"bf16_step_s", trial.bf16_step_s}};
}

PrecisionTrial precision_trial_from_json(const nlohmann::json& j) {
  PrecisionTrial t;
  t.fp32_step_s = j.value("fp32_step_s", 0.0);
  t.bf16_step_s = j.value("bf16_step_s", 0.0);
  return t;
}

}  // namespace fovea
