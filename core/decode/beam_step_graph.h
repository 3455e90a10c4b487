#pragma once
/// beam_search's step for exactly k hypotheses as one CUDA graph: decoding_step_on_device
/// (core/model/decoding_step.h) captured once per decoder and size, then replayed at every word, so
/// that a word costs one graph launch, one upload (the words and their parents) and one transfer
/// back, where eagerly it costs two dozen kernel launches. Only in builds against a LibTorch with
/// CUDA graphs (FOVEA_WITH_CUDA_GRAPHS) and for annotations on a CUDA device; FOVEA_CUDA_GRAPHS=0
/// in the environment turns it off.
#include <memory>

#include "core/model/decoding_step.h"

namespace fovea {

class BeamStepGraph {
 public:
  virtual ~BeamStepGraph() = default;

  /// The graph for k hypotheses over one image's annotations (1, L, D) and their keys (1, L, A),
  /// from this thread's cache or captured now; null where graphs do not apply.
  static BeamStepGraph* for_search(DecoderImpl& dec, const torch::Tensor& annotations, const AttentionKeys& keys,
                                   const DecodingConstants& constants, std::int64_t k);

  /// One step: the hypotheses' words and, after them, their parents' rows in `state` (2k int64 on
  /// the device). `state` is the previous step's (any number of rows); the result's state is k rows
  /// owned by the graph, valid until the next step.
  virtual DecodingStep step(const torch::Tensor& words_and_parents, const DecoderState& state) = 0;
};

}  // namespace fovea
