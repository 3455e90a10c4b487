#pragma once
/// Free-running decoding (SPEC §3): batched greedy search and beam search. Every word comes
/// with its α (L weights), β and log-probability.
#include <vector>

#include "core/captioner.h"
#include "core/show_attend_tell.h"

namespace fovea {

struct DecodeOptions {
  int beam = 3;                  ///< beam width; 1 = greedy
  std::int64_t max_len = 0;      ///< words; 0 = the model's max_caption_len
  Glimpse glimpse = Glimpse::Expected;  ///< hard models: expected α or sampled glimpses
  bool allow_end = true;         ///< false: <end> is never chosen, every caption runs max_len steps (fixed work, for benchmarks)
  /// Class nouns recognised in the image and in its mirror (test-time augmentation; expected α
  /// only). At each step these tokens keep the image's share of the probability, and the split
  /// of that share among them averages the image's with the mirror's: a second LSTM state, fed
  /// the same words, reads the mirror's annotations where the image's α points (cells flipped
  /// back). Everything else, the α shown included, is the image's. Empty: off.
  std::vector<std::int64_t> mirrored_tokens;
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
/// mirrored: the mirror image's annotations in the image's cell order (mirrored_annotations), for
/// options.mirrored_tokens; undefined = off.
std::vector<DecodedCaption> greedy_decode(ShowAttendTellImpl& net, const torch::Tensor& annotations,
                                          const DecodeOptions& options, const torch::Tensor& mirrored = {});

/// Beam search for one image's annotations (1, L, D). Returns the best finished hypothesis, or
/// the best unfinished one when no beam reaches <end> within max_len words.
DecodedCaption beam_search(ShowAttendTellImpl& net, const torch::Tensor& annotations, const DecodeOptions& options,
                           const torch::Tensor& mirrored = {});

/// Log-probabilities lp (b, K) whose `tokens` keep their total probability, split among them as
/// the average of lp's split and lp_mirror's (both log-softmax outputs).
torch::Tensor with_mirrored_share(torch::Tensor lp, const torch::Tensor& lp_mirror, const torch::Tensor& tokens);

/// The annotations of the images flipped left-right (B, 3, S, S), each cell's put back where
/// the image's own cell of that place is: (B, L, D).
torch::Tensor mirrored_annotations(ShowAttendTellImpl& net, const torch::Tensor& images);

/// Beam search (or greedy when beam == 1) over a batch of images (B, 3, S, S).
std::vector<DecodedCaption> decode_images(ShowAttendTellImpl& net, const torch::Tensor& images,
                                          const DecodeOptions& options);

}  // namespace fovea
