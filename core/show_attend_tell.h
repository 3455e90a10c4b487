#pragma once
/// The full network (encoder + decoder) and the bundle of network, config and vocabulary that
/// the trainer, the checkpoint code and the inference API pass around.
#include "core/decoder.h"
#include "core/encoder.h"
#include "core/vocabulary.h"

namespace fovea {

class ShowAttendTellImpl : public torch::nn::Module {
 public:
  /// Builds the encoder first (it fills in D and the grid), then the decoder.
  explicit ShowAttendTellImpl(ModelConfig& config);

  torch::Tensor encode(const torch::Tensor& images) { return encoder->forward(images); }
  DecoderOutput forward(const torch::Tensor& images, const torch::Tensor& tokens, const torch::Tensor& lengths,
                        const torch::Tensor& sample = {});
  /// Everything the optimizer updates (includes a fine-tuned TorchScript backbone).
  std::vector<torch::Tensor> trainable_parameters();

  Encoder encoder{nullptr};
  Decoder decoder{nullptr};
};
TORCH_MODULE(ShowAttendTell);

/// A ready-to-use model: network on its device, its config and its vocabulary.
struct CaptionModel {
  ModelConfig config;
  Vocabulary vocab;
  ShowAttendTell net{nullptr};
  torch::Device device{torch::kCPU};

  /// Creates a freshly initialised model (config.vocab_size is set from vocab).
  static CaptionModel create(ModelConfig config, Vocabulary vocab, torch::Device device);
};

}  // namespace fovea
