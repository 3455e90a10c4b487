#pragma once
/// Adam (torch::optim::Adam's update, state and checkpoints) with the update of each float CPU
/// parameter done in one pass. torch::optim::Adam's step runs eight tensor operations, each a pass
/// over the weight, its gradient or a moment: for a decoder with a 10000-word vocabulary that is
/// ~1.3 GB of memory traffic a step, 61 of the 539 ms of `fovea bench`'s decoder_train_step on a
/// Xeon. Here one pass reads the weight, the gradient and both moments and writes back three.
/// Anything else (other devices or types, AMSGrad, weight decay) goes through
/// torch::optim::Adam::step unchanged.
#include <torch/torch.h>

namespace fovea {

class FusedAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace fovea
