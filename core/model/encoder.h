#pragma once
/// Image encoder: a grid of annotation vectors a_1..a_L (docs/design.md §1.1).
/// Either the built-in CNN (stride 8: 112x112 -> 14x14) or a TorchScript backbone, frozen or
/// fine-tuned, loaded from its bytes (ModelConfig::backbone_bytes: a model file embeds them) or
/// else from its file.
#include <memory>

#include "core/model/model_config.h"
#include "core/runtime/torch_compat.h"

namespace torch::jit {
struct Module;
}

namespace fovea {

class EncoderImpl : public torch::nn::Module {
 public:
  /// Builds the encoder and fills in config.annotation_dim / grid_h / grid_w.
  explicit EncoderImpl(ModelConfig& config);
  ~EncoderImpl() override;

  /// images: (B, 3, S, S) floats in [0, 1]. Returns annotations (B, L, D).
  torch::Tensor forward(const torch::Tensor& images);

  /// Parameters of the TorchScript backbone when it is fine-tuned (not registered with
  /// torch::nn::Module, so they are listed here for the optimizer and the checkpoint).
  std::vector<std::pair<std::string, torch::Tensor>> backbone_parameters() const;
  bool has_backbone() const { return backbone_ != nullptr; }
  /// Images this encoder has run on since it was built (its own check of a blank image aside):
  /// what runs and evaluations report, to show annotations read from a cache cost no forward.
  std::int64_t images_encoded() const { return images_encoded_; }
  /// Built-in CNN: the first `blocks` blocks keep their weights. forward() runs them without
  /// gradients, so a backward stops above them (and costs only the blocks that train); their
  /// batch norms behave as the rest of the network's, except when every block is frozen: the
  /// encoder then does not train and its batch norms use their running statistics (a fixed
  /// function of each image, as training from cached annotations needs). 0 (the default): every
  /// block trains.
  void freeze_blocks(std::int64_t blocks);
  std::int64_t blocks() const;
  void to_device(const torch::Device& device);

 private:
  torch::nn::Sequential cnn_{nullptr};
  std::unique_ptr<torch::jit::Module> backbone_;
  bool trainable_ = false;
  std::int64_t images_encoded_ = 0;
  bool centred_cells_ = true;
  std::size_t third_strided_conv_ = 0;  ///< module index in cnn_ padded on one side with centred cells
  std::size_t frozen_modules_ = 0;      ///< modules at the start of cnn_ that run without gradients
};
TORCH_MODULE(Encoder);

}  // namespace fovea
