#pragma once
/// The objective's settings (docs/design.md §2), torch-free so the training config and the GUI's
/// training dialog can hold them without pulling in LibTorch.
#include <string>

namespace fovea {

enum class PenaltyReduction {
  Sum,   ///< λ Σ_i (1 − Σ_t α_ti)², as in the paper
  Mean,  ///< λ mean_i (1 − Σ_t α_ti)², as in the most used PyTorch reimplementation
};
PenaltyReduction parse_penalty_reduction(const std::string& s);
std::string to_string(PenaltyReduction r);

struct ObjectiveOptions {
  double lambda = 1.0;  ///< weight of the doubly stochastic penalty
  PenaltyReduction reduction = PenaltyReduction::Mean;
  double lambda_r = 1.0;   ///< weight of the REINFORCE term (hard)
  double lambda_e = 0.002; ///< weight of the entropy bonus (hard)
};

}  // namespace fovea
