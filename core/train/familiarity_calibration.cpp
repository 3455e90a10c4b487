#include "core/train/familiarity_calibration.h"

#include <algorithm>

#include "core/model/checkpoint.h"

namespace fovea {
namespace {

/// Pooled annotations (N, D) of the first `count` images of a split, evenly spread over it.
torch::Tensor pooled_features(SplitAnnotations& split, std::size_t count) {
  constexpr std::size_t kBatch = 32;
  const auto size = split.source().size();
  const std::size_t n = std::min(count, size);
  std::vector<torch::Tensor> parts;
  for (std::size_t start = 0; start < n; start += kBatch) {
    std::vector<std::size_t> indices;
    for (std::size_t i = start; i < std::min(n, start + kBatch); ++i) indices.push_back(i * size / n);
    parts.push_back(pooled_annotations(split.read(indices)).cpu());
  }
  return torch::cat(parts);
}

}  // namespace

FamiliarityStats measure_familiarity(SplitAnnotations& train, SplitAnnotations& val, std::size_t max_images) {
  torch::NoGradGuard no_grad;
  return fit_familiarity(pooled_features(train, max_images), pooled_features(val, max_images));
}

void store_familiarity(const std::string& path, const FamiliarityStats& stats) {
  auto ckpt = load_checkpoint(path);
  if (ckpt.has_optimizer)
    throw CheckpointError(path + ": holds a training state to resume from; measure a model file (best.ckpt, a shipped model) instead");
  SaveOptions options;
  options.training = ckpt.training;
  options.rng_state = false;
  const auto names = familiarity_tensor_names();
  const auto tensors = familiarity_tensors(stats);
  for (std::size_t i = 0; i < names.size(); ++i) options.extra.emplace_back(names[i], tensors[i]);
  save_checkpoint(path, ckpt.model, options);
}

FamiliarityStats store_familiarity(const std::string& path, std::shared_ptr<const SceneSource> train,
                                   std::shared_ptr<const SceneSource> val, std::size_t max_images) {
  auto ckpt = load_checkpoint(path);
  if (ckpt.has_optimizer)
    throw CheckpointError(path + ": holds a training state to resume from; measure a model file (best.ckpt, a shipped model) instead");
  SplitAnnotations train_annotations(ckpt.model, std::move(train), false), val_annotations(ckpt.model, std::move(val), false);
  const auto stats = measure_familiarity(train_annotations, val_annotations, max_images);
  store_familiarity(path, stats);
  return stats;
}

}  // namespace fovea
