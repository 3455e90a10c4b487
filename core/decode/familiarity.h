#pragma once
/// Is an image like the ones a model was trained on? The model file keeps the mean and the
/// (shrunk) covariance of its training images' pooled annotation vectors and the Mahalanobis
/// distance within which 99% of its validation images stay; an image further away than that is
/// unfamiliar, and its caption unreliable (a photo shown to a model of fashion scenes).
#include <optional>
#include <string>
#include <vector>

#include "core/runtime/torch_compat.h"

namespace fovea {

struct FamiliarityStats {
  torch::Tensor mean;       ///< (D) mean pooled annotation vector of the training images
  torch::Tensor precision;  ///< (D, D) inverse of the shrunk covariance
  double validation_q99 = 0;  ///< distance that 99% of validation images stay within
  double threshold = 0;       ///< further than this: unfamiliar
};

/// Names under which the statistics travel in a checkpoint (SaveOptions::extra).
std::vector<std::string> familiarity_tensor_names();
std::vector<torch::Tensor> familiarity_tensors(const FamiliarityStats& stats);
FamiliarityStats familiarity_from_tensors(const std::vector<torch::Tensor>& tensors);

/// The image-level feature: annotations (B, L, D) averaged over the cells, (B, D) in float.
torch::Tensor pooled_annotations(const torch::Tensor& annotations);

/// Fits the statistics on training features (N, D) and sets the threshold from validation
/// features (M, D). Throws std::invalid_argument when there are fewer than 2 of either.
FamiliarityStats fit_familiarity(const torch::Tensor& train_pooled, const torch::Tensor& val_pooled);

/// Mahalanobis distances (B) of pooled features (B, D).
torch::Tensor familiarity_distances(const FamiliarityStats& stats, const torch::Tensor& pooled);

}  // namespace fovea
