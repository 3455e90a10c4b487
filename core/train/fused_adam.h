#pragma once
/// Adam (torch::optim::Adam's update, state and checkpoints) with the update of each float CPU
/// parameter done in one pass. torch::optim::Adam's step runs eight tensor operations, each a pass
/// over the weight, its gradient or a moment: for a decoder with a 10000-word vocabulary that is
/// ~1.3 GB of memory traffic a step, 61 of the 539 ms of `fovea bench`'s decoder_train_step on a
/// Xeon. Here one pass reads the weight, the gradient and both moments and writes back three.
/// A gradient given as a weight's rows (a coalesced sparse tensor: the word embedding's, see
/// core/model/word_gradient_rows.h) is read row by row; the other rows take Adam's update with a
/// zero gradient, as a dense gradient's zeros would give them, without a 20 MB gradient to write and
/// read. Anything else (other devices or types, AMSGrad, weight decay) goes through
/// torch::optim::Adam::step unchanged, with such a gradient made dense first.
#include <torch/torch.h>

namespace fovea {

class FusedAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

/// Drops the optimizer's parameters' gradients (PyTorch 2.x's zero_grad(set_to_none=true); 1.13's
/// zero_grad() writes zeros): the next backward then hands each weight its gradient instead of
/// adding it into a zeroed one, which saves a pass over every gradient twice a step. Parameters
/// that get no gradient in a step keep none, and Adam leaves them as they are.
void clear_gradients(torch::optim::Optimizer& optimizer);

}  // namespace fovea
