#pragma once
/// Free-running decoding (docs/design.md §3): batched greedy search and beam search. Every word comes
/// with its α (L weights), β and log-probability.
#include <vector>

#include "core/data/image.h"
#include "core/decode/caption_result.h"
#include "core/decode/probe.h"
#include "core/model/show_attend_tell.h"

namespace fovea {

struct DecodeOptions {
  int beam = 3;                  ///< beam width; 1 = greedy
  std::int64_t max_len = 0;      ///< words; 0 = the model's max_caption_len
  Glimpse glimpse = Glimpse::Expected;  ///< hard models: expected α or sampled glimpses
  bool allow_end = true;         ///< false: <end> is never chosen, every caption runs max_len steps (fixed work, for benchmarks)
};

struct DecodedWord {
  std::int64_t token = 0;
  float log_prob = 0;
  float beta = 1;
  std::int64_t glimpse = -1;  ///< sampled cell (hard, sampled glimpses), else -1
  std::vector<float> alpha;   ///< L = grid_h * grid_w weights, row-major
};

struct DecodedCaption {
  std::vector<DecodedWord> words;  ///< the caption's words, without <end>
  double log_prob = 0;             ///< Σ log p over the words and <end> (when finished)
  bool finished = false;           ///< false when the length limit came before <end>
  std::vector<std::int64_t> tokens() const;
};

/// The decoded caption as the inference API reports it (words, α, β, log p).
CaptionResult to_caption_result(const DecodedCaption& d, const CaptionModel& m);

/// Greedy decoding of a batch of annotations (B, L, D), finished rows dropped from the work.
std::vector<DecodedCaption> greedy_decode(ShowAttendTellImpl& net, const torch::Tensor& annotations,
                                          const DecodeOptions& options);

/// Beam search for one image's annotations (1, L, D). Returns the best finished hypothesis, or
/// the best unfinished one when no beam reaches <end> within max_len words.
DecodedCaption beam_search(ShowAttendTellImpl& net, const torch::Tensor& annotations, const DecodeOptions& options);

/// The next word of `image` after `prefix` with α forced onto `region` (core/decode/probe.h), and
/// with the model's own α beside it; `top` words each.
ProbeResult probe_model(CaptionModel& m, const RgbImage& image, const ProbeRegion& region, const std::string& prefix,
                        int top);

/// Beam search (or greedy when beam == 1) over a batch of annotations (B, L, D).
std::vector<DecodedCaption> decode_annotations(ShowAttendTellImpl& net, const torch::Tensor& annotations,
                                               const DecodeOptions& options);

/// Beam search (or greedy when beam == 1) over a batch of images (B, 3, S, S).
std::vector<DecodedCaption> decode_images(ShowAttendTellImpl& net, const torch::Tensor& images,
                                          const DecodeOptions& options);

}  // namespace fovea
