#include "core/model/model_config.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/runtime/enum_names.h"

namespace fovea {

namespace {
constexpr EnumName<AttentionKind> kAttentionNames[] = {{AttentionKind::Soft, "soft"}, {AttentionKind::Hard, "hard"}};
constexpr EnumName<InitState> kInitStateNames[] = {
    {InitState::Mean, "mean"}, {InitState::Zero, "zero"}, {InitState::Learned, "learned"}};
}  // namespace

AttentionKind parse_attention(const std::string& s) {
  if (const auto* k = enum_named(kAttentionNames, s)) return *k;
  throw std::invalid_argument("attention must be " + quoted_names(kAttentionNames) + ", got '" + s + "'");
}
std::string to_string(AttentionKind k) { return name_of(kAttentionNames, k, "hard"); }

InitState parse_init_state(const std::string& s) {
  if (const auto* state = enum_named(kInitStateNames, s)) return *state;
  throw std::invalid_argument("init state must be " + quoted_names(kInitStateNames) + ", got '" + s + "'");
}
std::string to_string(InitState s) { return name_of(kInitStateNames, s, "?"); }

void ModelConfig::validate() const {
  auto positive = [](std::int64_t v, const char* name) {
    if (v <= 0) throw std::invalid_argument(std::string(name) + " must be positive, got " + std::to_string(v));
  };
  positive(image_size, "image_size");
  positive(embed_dim, "embed_dim");
  positive(attention_dim, "attention_dim");
  positive(hidden_dim, "hidden_dim");
  positive(max_caption_len, "max_caption_len");
  if (backbone_path.empty()) {
    if (encoder_widths.size() < 3) throw std::invalid_argument("encoder_widths needs at least 3 blocks");
    for (auto w : encoder_widths) positive(w, "encoder width");
    if (!encoder_strides.empty()) {
      if (encoder_strides.size() != encoder_widths.size()) {
        throw std::invalid_argument("encoder_strides needs one stride per block (" + std::to_string(encoder_widths.size()) +
                                    "), got " + std::to_string(encoder_strides.size()));
      }
      const auto halving = std::count(encoder_strides.begin(), encoder_strides.end(), 2);
      const bool ones_and_twos = std::all_of(encoder_strides.begin(), encoder_strides.end(),
                                             [](std::int64_t s) { return s == 1 || s == 2; });
      if (!ones_and_twos || halving != 3) {
        throw std::invalid_argument("encoder_strides must be 1s and exactly three 2s (the grid is an eighth of the image)");
      }
    }
    if (image_size % 8 != 0) throw std::invalid_argument("image_size must be a multiple of 8 for the built-in CNN");
  }
  if (dropout < 0 || dropout >= 1) throw std::invalid_argument("dropout must be in [0, 1), got " + std::to_string(dropout));
}

std::vector<std::int64_t> ModelConfig::block_strides() const {
  if (!encoder_strides.empty()) return encoder_strides;
  std::vector<std::int64_t> s(encoder_widths.size(), 1);
  for (std::size_t i = 0; i < s.size() && i < 3; ++i) s[i] = 2;
  return s;
}

void ModelConfig::fit_strides_to_widths(bool strides_given) {
  if (!strides_given && encoder_strides.size() != encoder_widths.size()) encoder_strides.clear();
}

nlohmann::json to_json(const ModelConfig& c) {
  return {{"attention", to_string(c.attention)},
          {"image_size", c.image_size},
          {"encoder_widths", c.encoder_widths},
          {"encoder_strides", c.encoder_strides},
          {"centred_cells", c.centred_cells},
          {"backbone_path", c.backbone_path},
          {"backbone_trainable", c.backbone_trainable},
          {"annotation_dim", c.annotation_dim},
          {"grid_h", c.grid_h},
          {"grid_w", c.grid_w},
          {"embed_dim", c.embed_dim},
          {"attention_dim", c.attention_dim},
          {"hidden_dim", c.hidden_dim},
          {"vocab_size", c.vocab_size},
          {"dropout", c.dropout},
          {"use_beta", c.use_beta},
          {"init_state", to_string(c.init_state)},
          {"max_caption_len", c.max_caption_len}};
}

ModelConfig model_config_from_json(const nlohmann::json& j) {
  ModelConfig c;
  try {
    c.attention = parse_attention(j.at("attention").get<std::string>());
    c.image_size = j.at("image_size").get<std::int64_t>();
    c.encoder_widths = j.at("encoder_widths").get<std::vector<std::int64_t>>();
    c.encoder_strides = j.value("encoder_strides", std::vector<std::int64_t>());  // absent: saved before the option
    c.centred_cells = j.value("centred_cells", false);  // absent: saved before the option, symmetric padding
    if (j.value("encoder_residual", false)) throw std::invalid_argument("residual encoder blocks are no longer supported");
    c.backbone_path = j.at("backbone_path").get<std::string>();
    c.backbone_trainable = j.at("backbone_trainable").get<bool>();
    c.annotation_dim = j.at("annotation_dim").get<std::int64_t>();
    c.grid_h = j.at("grid_h").get<std::int64_t>();
    c.grid_w = j.at("grid_w").get<std::int64_t>();
    c.embed_dim = j.at("embed_dim").get<std::int64_t>();
    c.attention_dim = j.at("attention_dim").get<std::int64_t>();
    c.hidden_dim = j.at("hidden_dim").get<std::int64_t>();
    c.vocab_size = j.at("vocab_size").get<std::int64_t>();
    c.dropout = j.at("dropout").get<double>();
    c.use_beta = j.at("use_beta").get<bool>();
    c.init_state = parse_init_state(j.at("init_state").get<std::string>());
    c.max_caption_len = j.at("max_caption_len").get<std::int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("model config: ") + e.what());
  }
  c.validate();
  return c;
}

std::vector<std::string> config_differences(const ModelConfig& a, const ModelConfig& b) {
  std::vector<std::string> diffs;
  const auto ja = to_json(a), jb = to_json(b);
  for (auto it = ja.begin(); it != ja.end(); ++it) {
    if (it.key() == "dropout" || it.key() == "max_caption_len") continue;  // not architecture
    if (!jb.contains(it.key()) || jb.at(it.key()) != it.value()) {
      diffs.push_back(it.key() + ": " + it.value().dump() + " vs " + (jb.contains(it.key()) ? jb.at(it.key()).dump() : "missing"));
    }
  }
  return diffs;
}

}  // namespace fovea
