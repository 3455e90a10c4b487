#include "core/decode/caption_sampling.h"

#include <cmath>
#include <random>

#include "core/data/vocabulary.h"
#include "core/model/decoding_step.h"

namespace fovea {

namespace {

/// A word drawn from row `row`'s log-probabilities (the words ruled out are -inf; the rest are
/// renormalised by their sum). `p` holds the row's probabilities meanwhile: each exp once.
std::int64_t draw_word(const DecodingStep& step, std::int64_t row, std::mt19937_64& rng, std::vector<double>& p) {
  const float* lp = step.log_probs(row);
  p.resize(std::size_t(step.vocab));
  double total = 0;
  for (std::int64_t k = 0; k < step.vocab; ++k) total += p[std::size_t(k)] = std::exp(double(lp[k]));
  double u = std::uniform_real_distribution<double>(0.0, total)(rng);
  std::int64_t last_allowed = Vocabulary::kEnd;
  for (std::int64_t k = 0; k < step.vocab; ++k) {
    if (p[std::size_t(k)] <= 0) continue;
    last_allowed = k;
    if (u < p[std::size_t(k)]) return k;
    u -= p[std::size_t(k)];
  }
  return last_allowed;  // rounding left u past the last word
}

}  // namespace

std::vector<SampledCaption> sample_captions(ShowAttendTellImpl& net, const torch::Tensor& annotations, int per_image,
                                            std::uint64_t seed) {
  torch::NoGradGuard no_grad;
  auto& dec = *net.decoder;
  const bool was_training = dec.is_training();
  dec.eval();  // no dropout: the captions come from the distribution the rewards are credited to
  const auto device = annotations.device();
  auto a = annotations.repeat_interleave(per_image, 0);
  const auto rows = a.size(0);
  const auto max_len = dec.config().max_caption_len;
  std::vector<SampledCaption> out(static_cast<std::size_t>(rows));
  std::mt19937_64 rng(seed);
  std::vector<double> probabilities;

  auto keys = attention_keys(dec.project_annotations(a));
  auto state = dec.initial_state(a);
  auto prev = torch::full({rows}, Vocabulary::kStart, torch::TensorOptions().dtype(torch::kLong).device(device));
  std::vector<std::int64_t> active(static_cast<std::size_t>(rows));  // caller's row of each working row
  for (std::int64_t i = 0; i < rows; ++i) active[std::size_t(i)] = i;
  const auto constants = decoding_constants(dec, /*allow_end=*/true);
  for (std::int64_t t = 0; t <= max_len && !active.empty(); ++t) {
    const auto b = std::int64_t(active.size());
    const auto step = decoding_step(dec, a, keys, prev, state, torch::Tensor(), constants);
    std::vector<std::int64_t> keep, next_words;
    for (std::int64_t row = 0; row < b; ++row) {
      auto& caption = out[std::size_t(active[std::size_t(row)])];
      const auto word = draw_word(step, row, rng, probabilities);
      if (word == Vocabulary::kEnd) {
        caption.finished = true;
      } else if (t < max_len) {
        caption.tokens.push_back(word);
        keep.push_back(row);
        next_words.push_back(word);
      }
    }
    if (keep.empty()) break;
    prev = torch::tensor(next_words, torch::kLong).to(device);
    state = step.state;
    if (keep.size() != std::size_t(b)) {  // finished rows leave the work
      const auto idx = torch::tensor(keep, torch::kLong).to(device);
      a = a.index_select(0, idx);
      keys.projected = keys.projected.index_select(0, idx);
      if (keys.exponential.defined()) keys.exponential = keys.exponential.index_select(0, idx);
      state = {state.h.index_select(0, idx), state.c.index_select(0, idx)};
      std::vector<std::int64_t> still;
      for (auto row : keep) still.push_back(active[std::size_t(row)]);
      active.swap(still);
    }
  }
  dec.train(was_training);
  return out;
}

}  // namespace fovea
