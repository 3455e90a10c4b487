#pragma once
/// The full network (encoder + decoder) and the bundle of network, config and vocabulary that
/// the trainer, the checkpoint code and the inference API pass around.
#include "core/data/vocabulary.h"
#include "core/model/decoder.h"
#include "core/model/encoder.h"

namespace fovea {

/// Sizes of the auxiliary per-cell labels: background + 10 Fashion-MNIST classes, background + 8 colours.
inline constexpr std::int64_t kAuxClasses = 11, kAuxColours = 9;

class ShowAttendTellImpl : public torch::nn::Module {
 public:
  /// Builds the encoder first (it fills in D and the grid), then the decoder.
  explicit ShowAttendTellImpl(ModelConfig& config);

  torch::Tensor encode(const torch::Tensor& images) { return encoder->forward(images); }
  DecoderOutput forward(const torch::Tensor& images, const torch::Tensor& tokens, const torch::Tensor& lengths,
                        const torch::Tensor& sample = {});
  /// Everything the optimizer updates (includes a fine-tuned TorchScript backbone).
  std::vector<torch::Tensor> trainable_parameters();

  /// Auxiliary per-cell heads on the annotations (class of the object under the cell, its colour,
  /// 0 = background), trained when the data has object boxes: they make each annotation vector
  /// say what is there, which is what attention needs to find the object a word names.
  std::pair<torch::Tensor, torch::Tensor> auxiliary_logits(const torch::Tensor& annotations);

  Encoder encoder{nullptr};
  Decoder decoder{nullptr};
  torch::nn::Linear aux_class{nullptr}, aux_colour{nullptr};
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
