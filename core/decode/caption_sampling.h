#pragma once
/// Captions drawn from the model's own word distribution: at every step the next word is sampled
/// from p(word | caption so far, image) instead of taken as the most probable, with the expected
/// context (a hard model's captions at test time). Self-critical training (core/train/self_critical.h)
/// scores such samples against the greedy caption.
#include <cstdint>
#include <vector>

#include "core/model/show_attend_tell.h"

namespace fovea {

struct SampledCaption {
  std::vector<std::int64_t> tokens;  ///< the words, without <start> or <end>
  bool finished = false;             ///< <end> was drawn within the length limit
};

/// `per_image` captions of each image of `annotations` (B, L, D), image-major: row i * per_image + k
/// is image i's k-th. Draws from a generator seeded with `seed` (the same seed, the same captions).
/// At most the model's max_caption_len words each; no autograd, dropout off.
std::vector<SampledCaption> sample_captions(ShowAttendTellImpl& net, const torch::Tensor& annotations, int per_image,
                                            std::uint64_t seed);

}  // namespace fovea
