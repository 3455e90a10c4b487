#include "core/decode/embed_backbone.h"

#include "core/decode/familiarity.h"
#include "core/model/checkpoint.h"

namespace fovea {

nlohmann::json embed_backbone(const std::string& path, const std::string& backbone_file) {
  auto ckpt = load_checkpoint(path, torch::kCPU, backbone_file);
  auto& config = ckpt.model.config;
  if (config.backbone_path.empty()) fovea_file_error(path, "has the built-in CNN, no TorchScript backbone to embed");
  if (ckpt.backbone_embedded) return describe_embedded_backbone(config);
  if (ckpt.has_optimizer) {
    fovea_file_error(path, "holds a training state (last.ckpt); resume the run where its backbone is found, or embed the "
                           "backbone into its best.ckpt");
  }
  // The file's own weights were loaded over the backbone's: the backbone given must be the one it
  // was trained with, or the file would hold weights its bytes do not.
  ModelConfig fresh_config = config;
  const auto fresh = CaptionModel::create(fresh_config, ckpt.model.vocab, torch::kCPU);
  const auto trained = ckpt.model.net->encoder->backbone_parameters(), given = fresh.net->encoder->backbone_parameters();
  bool same = trained.size() == given.size();
  for (std::size_t i = 0; same && i < trained.size(); ++i) same = torch::equal(trained[i].second, given[i].second);
  if (!same && !config.backbone_trainable) {
    fovea_file_error(path, backbone_file + ": its weights are not those this model was trained with; give the backbone file "
                                           "it was trained with (" + config.backbone_path + ")");
  }
  SaveOptions options;
  options.training = ckpt.training;
  options.rng_state = false;
  try {
    const auto names = familiarity_tensor_names();
    const auto tensors = read_checkpoint_extra(ckpt, names);
    for (std::size_t i = 0; i < names.size(); ++i) options.extra.emplace_back(names[i], tensors[i]);
  } catch (const CheckpointError&) {
    // No familiarity statistics in this file: nothing to keep.
  }
  save_checkpoint(path, ckpt.model, options);
  return describe_embedded_backbone(config);
}

}  // namespace fovea
