#pragma once
/// The decoder's half of a training step (forward, objective, backward), run on parts of the batch
/// at once. A decoder step is a chain of small products, one per word, each too small to share
/// between cores: with two intra-op threads the reference step ran only 1.2x faster than with one
/// (docs/performance.md). Given two cores, the batch is split into two parts of alternating caption
/// lengths, each decoded and back-propagated on its own thread with one intra-op thread; the parts'
/// gradients add up in the parameters to the whole batch's. The weight gradients of the products
/// over all words (core/model/batch_weight_gradients.h) and the word embedding's
/// (core/model/word_gradient_rows.h) wait for every part's backward and are then made once, on
/// every thread. Each part draws its dropout masks and
/// glimpses from its own generator (core/runtime/thread_generator.h), so runs stay reproducible.
#include <functional>
#include <vector>

#include "core/model/decoder.h"
#include "core/train/objectives.h"

namespace fovea {

struct DecoderPassInput {
  torch::Tensor annotations;              ///< (B, L, D); the encoder's graph is not followed (see annotations_grad)
  torch::Tensor tokens, lengths;          ///< teacher-forced captions (pad_captions)
  torch::Tensor sample;                   ///< hard attention: (B) bool, rows that sample glimpses; else undefined
  torch::Tensor word_boxes, word_has_box; ///< attention supervision targets (B, T, L), (B, T); or undefined
  /// Self-critical training: (B) each caption's advantage, weighting its −log p (objectives.h); or undefined
  torch::Tensor caption_weights;
};

struct DecoderPassOptions {
  ObjectiveOptions objective;
  bool hard = false;                ///< hard attention's REINFORCE objective (then pass a baseline)
  double supervision_weight = 0;    ///< weight of the attention supervision loss (0: off)
  bool bf16 = false;                ///< the decoder's products in bf16, float results (core/model/bf16_product.h)
  int parts = 0;                    ///< parts run at once on a CPU (at most one per caption); 0: decoder_pass_parts()
  /// Leave the word embedding's gradient as the rows the batch read (a sparse tensor) when it runs
  /// in parts, for a caller whose clipping and optimizer take such a gradient (clip_gradient_norm,
  /// FusedAdam). false: made dense, as any optimizer takes it.
  bool word_gradient_rows = false;
  /// Data parallel: sums the values over the processes of the group, in place. The loss is then
  /// the mean over every process's captions (and supervised words), so the processes' gradients
  /// add up to the whole batch's, and the terms and the baseline's update are the whole batch's.
  /// Unset: this batch alone.
  std::function<void(std::vector<double>&)> sum_over_processes;
};

struct DecoderPassResult {
  ObjectiveTerms terms;             ///< over the whole batch (every process's); terms.loss is undefined (already back-propagated)
  double supervision = 0;           ///< attention supervision loss (mean over the supervised words)
  torch::Tensor annotations_grad;   ///< d(loss)/d(annotations), for the encoder's backward; undefined if not needed
  int parts = 1;                    ///< how many parts ran
};

/// How many parts a batch of `batch` captions runs in on `device`: on a CPU one per intra-op thread,
/// with at least 16 captions each; 1 elsewhere.
int decoder_pass_parts(std::int64_t batch, const torch::Device& device);

/// Forward, objective (soft: NLL + doubly stochastic penalty; hard: REINFORCE surrogate with
/// `baseline`, which the first sampled batch initialises) plus weighted attention supervision, and
/// their backward into the decoder's gradients, which are added to (zero them before). The loss is
/// the whole batch's: each part's terms are weighted by its share of captions (supervised words).
DecoderPassResult decoder_pass(Decoder& decoder, const DecoderPassInput& in, const DecoderPassOptions& options,
                               MovingBaseline* baseline = nullptr);

}  // namespace fovea
