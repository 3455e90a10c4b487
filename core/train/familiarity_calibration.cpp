#include "core/train/familiarity_calibration.h"

#include <algorithm>

#include "core/data/image_tensor.h"
#include "core/model/checkpoint.h"

namespace fovea {
namespace {

/// Pooled annotations (N, D) of the first `count` images of `source`, evenly spread over it.
torch::Tensor pooled_features(CaptionModel& model, const SceneSource& source, std::size_t count) {
  constexpr std::size_t kBatch = 32;
  const std::size_t n = std::min(count, source.size());
  std::vector<torch::Tensor> parts;
  for (std::size_t start = 0; start < n; start += kBatch) {
    std::vector<Scene> scenes;
    for (std::size_t i = start; i < std::min(n, start + kBatch); ++i) scenes.push_back(source.get(i * source.size() / n));
    std::vector<const RgbImage*> images;
    for (const auto& s : scenes) images.push_back(&s.image);
    const auto annotations = model.net->encode(images_to_tensor(images, model.config.image_size).to(model.device));
    parts.push_back(pooled_annotations(annotations).cpu());
  }
  return torch::cat(parts);
}

}  // namespace

FamiliarityStats measure_familiarity(CaptionModel& model, const SceneSource& train, const SceneSource& val,
                                     std::size_t max_images) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.net->is_training();
  model.net->eval();
  const auto train_features = pooled_features(model, train, max_images);
  const auto val_features = pooled_features(model, val, max_images);
  model.net->train(was_training);
  return fit_familiarity(train_features, val_features);
}

FamiliarityStats store_familiarity(const std::string& path, const SceneSource& train, const SceneSource& val,
                                   std::size_t max_images) {
  auto ckpt = load_checkpoint(path);
  if (ckpt.has_optimizer)
    throw CheckpointError(path + ": holds a training state to resume from; measure a model file (best.ckpt, a shipped model) instead");
  const auto stats = measure_familiarity(ckpt.model, train, val, max_images);
  SaveOptions options;
  options.training = ckpt.training;
  options.rng_state = false;
  const auto names = familiarity_tensor_names();
  const auto tensors = familiarity_tensors(stats);
  for (std::size_t i = 0; i < names.size(); ++i) options.extra.emplace_back(names[i], tensors[i]);
  save_checkpoint(path, ckpt.model, options);
  return stats;
}

}  // namespace fovea
