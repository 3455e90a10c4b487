#pragma once
/// Turning scenes into training batches, deterministically: the order of an epoch and the
/// reference caption drawn for each scene depend only on (seed, epoch, index), so a resumed run
/// sees exactly the batches an uninterrupted one would.
#include <cstdint>
#include <vector>

#include "core/scene_source.h"
#include "core/torch_compat.h"
#include "core/vocabulary.h"

namespace fovea {

struct Batch {
  torch::Tensor images;   ///< (B, 3, S, S) floats in [0, 1]
  torch::Tensor tokens;   ///< (B, T+1) <start> w.. <end> <pad>..
  torch::Tensor lengths;  ///< (B) predicted tokens per caption (words + <end>)
  std::vector<std::size_t> indices;
};

/// A permutation of [0, n) for this epoch.
std::vector<std::size_t> epoch_order(std::size_t n, std::uint64_t seed, std::int64_t epoch);

/// Picks one reference caption per scene (which one depends on seed, epoch and index).
/// Captions longer than max_words are cut.
Batch make_batch(const SceneSource& source, const std::vector<std::size_t>& indices, const Vocabulary& vocab,
                 std::int64_t image_size, std::uint64_t seed, std::int64_t epoch, std::int64_t max_words);

/// Pads encoded captions (each <start> .. <end>) into (tokens, lengths).
std::pair<torch::Tensor, torch::Tensor> pad_captions(const std::vector<std::vector<std::int64_t>>& encoded);

}  // namespace fovea
