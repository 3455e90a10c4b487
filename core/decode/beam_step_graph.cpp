#include "core/decode/beam_step_graph.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>

#ifdef FOVEA_WITH_CUDA_GRAPHS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace fovea {

namespace {

bool turned_off() {
  const char* v = std::getenv("FOVEA_CUDA_GRAPHS");
  return v != nullptr && std::strcmp(v, "0") == 0;
}

}  // namespace

#ifdef FOVEA_WITH_CUDA_GRAPHS

namespace {

/// The static tensors the graph reads and writes; a search copies its image and constants in.
class CapturedBeamStep : public BeamStepGraph {
 public:
  CapturedBeamStep(DecoderImpl& dec, const torch::Tensor& annotations, const AttentionKeys& keys,
                   const DecodingConstants& constants, std::int64_t k)
      : dec_(dec), k_(k) {
    annotations_ = annotations.clone();
    projected_ = keys.projected.clone();
    constants_ = {constants.embedding_with_bias.clone(), constants.ruled_out.clone(),
                  constants.word_gates.defined() ? constants.word_gates.clone() : torch::Tensor()};
    const auto n = dec.config().hidden_dim;
    words_and_parents_ = torch::zeros({2 * k}, annotations.options().dtype(torch::kLong));
    h_ = torch::zeros({k, n}, annotations.options());
    c_ = torch::zeros({k, n}, annotations.options());
    torch::NoGradGuard no_grad;
    auto side = c10::cuda::getStreamFromPool();
    {
      c10::cuda::CUDAStreamGuard guard(side);
      for (int i = 0; i < 3; ++i) body();  // warm-up: libraries set up their handles outside the capture
      side.synchronize();
      graph_.capture_begin();
      body();
      graph_.capture_end();
    }
    side.synchronize();
  }

  /// Reuses the capture for another search of the same sizes: copies its image and constants in.
  bool load(const torch::Tensor& annotations, const AttentionKeys& keys, const DecodingConstants& constants) {
    if (annotations.sizes() != annotations_.sizes() || keys.projected.sizes() != projected_.sizes() ||
        constants.ruled_out.sizes() != constants_.ruled_out.sizes() ||
        constants.word_gates.defined() != constants_.word_gates.defined()) {
      return false;
    }
    annotations_.copy_(annotations);
    projected_.copy_(keys.projected);
    constants_.embedding_with_bias.copy_(constants.embedding_with_bias);
    constants_.ruled_out.copy_(constants.ruled_out);
    if (constants.word_gates.defined()) constants_.word_gates.copy_(constants.word_gates);
    return true;
  }

  DecodingStep step(const torch::Tensor& words_and_parents, const DecoderState& state) override {
    torch::NoGradGuard no_grad;
    if (state.h.data_ptr() != out_.state.h.data_ptr()) {  // entering from an eager step
      const auto parents = words_and_parents.narrow(0, k_, k_);
      h_.copy_(state.h.index_select(0, parents));
      c_.copy_(state.c.index_select(0, parents));
      words_and_parents_.copy_(words_and_parents);
      words_and_parents_.narrow(0, k_, k_).copy_(torch::arange(k_, words_and_parents.options()));
    } else {
      words_and_parents_.copy_(words_and_parents);
    }
    graph_.replay();
    DecodingStep s;
    s.vocab = dec_.config().vocab_size;
    s.cells = annotations_.size(1);
    s.host = out_.packed.to(torch::kCPU, torch::kFloat);
    s.state = out_.state;
    return s;
  }

 private:
  /// What the graph holds: the parents' rows of the last state, one step, the new state kept.
  void body() {
    const auto parents = words_and_parents_.narrow(0, k_, k_);
    const DecoderState from{h_.index_select(0, parents), c_.index_select(0, parents)};
    const AttentionKeys keys(projected_.expand({k_, -1, -1}));
    out_ = decoding_step_on_device(dec_, annotations_.expand({k_, -1, -1}), keys, words_and_parents_.narrow(0, 0, k_),
                                   from, constants_);
    h_.copy_(out_.state.h);
    c_.copy_(out_.state.c);
    out_.state = {h_, c_};
  }

  DecoderImpl& dec_;
  std::int64_t k_;
  torch::Tensor annotations_, projected_, words_and_parents_, h_, c_;
  DecodingConstants constants_;
  DeviceStep out_;
  at::cuda::CUDAGraph graph_;
};

}  // namespace

BeamStepGraph* BeamStepGraph::for_search(DecoderImpl& dec, const torch::Tensor& annotations, const AttentionKeys& keys,
                                         const DecodingConstants& constants, std::int64_t k) {
  if (turned_off() || !annotations.is_cuda() || keys.exponential.defined()) return nullptr;
  // By decoder and by where its weights are (a decoder made later at the same address has other
  // weights), and by size.
  using Key = std::tuple<const DecoderImpl*, const void*, std::int64_t, std::int64_t, std::int64_t, int>;
  thread_local std::map<Key, std::unique_ptr<CapturedBeamStep>> cache;
  const Key key{&dec, dec.parameters().front().data_ptr(), k, annotations.size(1), annotations.size(2),
                int(annotations.scalar_type())};
  auto& slot = cache[key];
  if (slot && slot->load(annotations, keys, constants)) return slot.get();
  slot = std::make_unique<CapturedBeamStep>(dec, annotations, keys, constants, k);
  return slot.get();
}

#else

BeamStepGraph* BeamStepGraph::for_search(DecoderImpl&, const torch::Tensor&, const AttentionKeys&,
                                         const DecodingConstants&, std::int64_t) {
  (void)turned_off;
  return nullptr;
}

#endif

}  // namespace fovea
