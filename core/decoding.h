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
  /// Class nouns also read from cut-outs (expected α only; the model needs a filled item
  /// classifier): the class nouns' tokens in class order. Each object of a plain-background image
  /// is cut out and named alone by the item classifier (name_cut_out_objects), and at each step
  /// the split of these tokens' share is mixed with the classifier's naming of the objects the
  /// step's α falls on, weighted by cut_out_weight times the α mass on them. Empty: off.
  std::vector<std::int64_t> cut_out_tokens;
  double cut_out_weight = kDefaultCutOutWeight;  ///< chosen on the validation split (docs/attention.md, "Row 67")
  CutOutViews cut_out_views;    ///< the views each cut-out is named in
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

/// The objects' cut-out namings of a batch of images, padded to one tensor each (images with
/// fewer objects get zero rows, which weigh nothing).
struct CutOutBatch {
  torch::Tensor cells;    ///< (B, N, L)
  torch::Tensor classes;  ///< (B, N, C)
  bool defined() const { return cells.defined(); }
  CutOutBatch rows(const torch::Tensor& index) const;  ///< index_select over images
  CutOutBatch row(std::int64_t i) const;               ///< image i's, as a batch of one (a view)
  CutOutBatch expand(std::int64_t b) const;            ///< one image's, repeated b times
};
CutOutBatch pad_cut_outs(const std::vector<ObjectCutOuts>& per_image, std::int64_t cells, std::int64_t classes,
                         const torch::Device& device);

/// Greedy decoding of a batch of annotations (B, L, D), finished rows dropped from the work.
/// mirrored: the mirror image's annotations in the image's cell order (mirrored_annotations), for
/// options.mirrored_tokens; undefined = off. cut_outs: the images' objects named alone, for
/// options.cut_out_tokens; undefined = off.
std::vector<DecodedCaption> greedy_decode(ShowAttendTellImpl& net, const torch::Tensor& annotations,
                                          const DecodeOptions& options, const torch::Tensor& mirrored = {},
                                          const CutOutBatch& cut_outs = {});

/// Beam search for one image's annotations (1, L, D). Returns the best finished hypothesis, or
/// the best unfinished one when no beam reaches <end> within max_len words.
DecodedCaption beam_search(ShowAttendTellImpl& net, const torch::Tensor& annotations, const DecodeOptions& options,
                           const torch::Tensor& mirrored = {}, const CutOutBatch& cut_outs = {});

/// Log-probabilities lp (b, K) whose `tokens` keep their total probability, their split mixed
/// with the cut-outs' naming of the objects under alpha (b, L): split' = (split + w q) / (1 + w),
/// q = the objects' class probabilities weighted by the α mass on each, w = weight × that mass.
torch::Tensor with_cut_out_share(torch::Tensor lp, const torch::Tensor& alpha, const CutOutBatch& cut_outs,
                                 const torch::Tensor& tokens, double weight);

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
