#pragma once
/// The architecture of a Show-Attend-Tell model: everything needed to rebuild it from a checkpoint.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fovea {

enum class AttentionKind { Soft, Hard };
enum class InitState { Mean, Zero, Learned };

AttentionKind parse_attention(const std::string& s);
std::string to_string(AttentionKind k);
InitState parse_init_state(const std::string& s);
std::string to_string(InitState s);

struct ModelConfig {
  AttentionKind attention = AttentionKind::Soft;
  std::int64_t image_size = 112;  ///< input side; images are resized to image_size x image_size
  /// Built-in CNN widths (3x3 conv + BatchNorm + ReLU each), and each block's stride.
  /// A first block at full resolution, three halvings, then four blocks at the grid (receptive
  /// field 79 px: about one garment per cell).
  std::vector<std::int64_t> encoder_widths = {16, 32, 64, 128, 128, 128, 128, 128};
  /// Built-in CNN: each block's stride, 1 or 2, three of them 2 (the grid is an eighth of the
  /// image); empty: the first three blocks have stride 2 (any other number of blocks).
  std::vector<std::int64_t> encoder_strides = {1, 2, 2, 2, 1, 1, 1, 1};
  /// Built-in CNN: true pads the third strided block on the right and bottom only, so each
  /// annotation is centred on the 8x8 pixels of its grid cell. false: the symmetric padding of
  /// older models (annotations centred 3.5 px up and left of their cell), read from their files.
  bool centred_cells = true;
  std::string backbone_path;        ///< TorchScript encoder file (its name at training time); empty = built-in CNN
  /// The TorchScript backbone's file as bytes, which model files embed (not part of the JSON):
  /// set when the model is built from backbone_path, or from the model file that holds it.
  std::shared_ptr<const std::string> backbone_bytes;
  bool backbone_trainable = false;  ///< fine-tune the TorchScript backbone
  std::int64_t annotation_dim = 0;  ///< D (derived from the encoder; checked on load)
  std::int64_t grid_h = 0, grid_w = 0;  ///< annotation grid (derived)
  std::int64_t embed_dim = 64;      ///< m
  std::int64_t attention_dim = 64;  ///< A
  std::int64_t hidden_dim = 256;    ///< n
  std::int64_t vocab_size = 0;      ///< K
  double dropout = 0.5;
  bool use_beta = true;  ///< gating scalar β on the soft context
  InitState init_state = InitState::Mean;
  std::int64_t max_caption_len = 24;  ///< decoding limit, in words

  std::int64_t cells() const { return grid_h * grid_w; }
  /// Whether β gates the context: soft attention with the gate. Otherwise every β is 1.
  bool beta_gated() const { return use_beta && attention == AttentionKind::Soft; }
  /// encoder_strides, or the default (2 2 2 1 1 ...) when it is empty.
  std::vector<std::int64_t> block_strides() const;
  /// After encoder_widths changed: strides the user did not give that name another number of
  /// blocks (the defaults' eight) no longer fit, so they are cleared and the first three blocks
  /// halve. Strides the user gave stay as they are, for validate() to check.
  void fit_strides_to_widths(bool strides_given);
  /// Throws std::invalid_argument saying which field is out of range.
  void validate() const;
};

nlohmann::json to_json(const ModelConfig& c);
ModelConfig model_config_from_json(const nlohmann::json& j);
/// Lists the architecture fields that differ ("hidden_dim: 256 vs 512"), empty when compatible.
std::vector<std::string> config_differences(const ModelConfig& a, const ModelConfig& b);

}  // namespace fovea
