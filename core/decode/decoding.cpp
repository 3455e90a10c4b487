#include "core/decode/decoding.h"

#include "core/decode/beam_step_graph.h"
#include "core/model/decoding_step.h"

#include <algorithm>
#include <limits>

namespace fovea {

CaptionResult to_caption_result(const DecodedCaption& d, const CaptionModel& m) {
  CaptionResult r;
  r.grid_h = int(m.config.grid_h);
  r.grid_w = int(m.config.grid_w);
  r.beta_gated = m.config.beta_gated();
  r.log_prob = d.log_prob;
  r.finished = d.finished;
  for (const auto& w : d.words) r.words.push_back({m.vocab.word(w.token), w.alpha, w.beta, w.log_prob, w.glimpse});
  return r;
}

namespace {

/// Restores the module's training mode when it goes out of scope.
class EvalModeGuard {
 public:
  explicit EvalModeGuard(torch::nn::Module& m) : module_(m), was_training_(m.is_training()) { m.eval(); }
  ~EvalModeGuard() { module_.train(was_training_); }

 private:
  torch::nn::Module& module_;
  bool was_training_;
};

std::int64_t limit(const ShowAttendTellImpl& net, const DecodeOptions& o) {
  return o.max_len > 0 ? o.max_len : net.decoder->config().max_caption_len;
}

DecoderState select_rows(const DecoderState& s, const torch::Tensor& idx) {
  return {s.h.index_select(0, idx), s.c.index_select(0, idx)};
}

torch::Tensor sample_mask(std::int64_t b, const DecodeOptions& o, const torch::Device& d) {
  if (o.glimpse != Glimpse::Sampled) return {};
  return torch::ones({b}, torch::TensorOptions().dtype(torch::kBool).device(d));
}

DecodedWord make_word(std::int64_t token, float lp, const DecodingStep& step, std::int64_t row) {
  DecodedWord w;
  w.token = token;
  w.log_prob = lp;
  w.beta = step.beta(row);
  w.glimpse = step.glimpse_at(row);
  w.alpha.assign(step.alpha(row), step.alpha(row) + step.cells);
  return w;
}

}  // namespace

std::vector<std::int64_t> DecodedCaption::tokens() const {
  std::vector<std::int64_t> t;
  for (const auto& w : words) t.push_back(w.token);
  return t;
}

std::vector<DecodedCaption> greedy_decode(ShowAttendTellImpl& net, const torch::Tensor& annotations,
                                          const DecodeOptions& options) {
  torch::NoGradGuard no_grad;
  EvalModeGuard eval(net);
  auto& dec = *net.decoder;
  const auto B = annotations.size(0);
  const auto device = annotations.device();
  const auto max_len = limit(net, options);
  std::vector<DecodedCaption> out(static_cast<std::size_t>(B));

  auto a = annotations;
  auto keys = attention_keys(dec.project_annotations(a));
  auto state = dec.initial_state(a);
  auto prev = torch::full({B}, Vocabulary::kStart, torch::TensorOptions().dtype(torch::kLong).device(device));
  std::vector<std::int64_t> active(static_cast<std::size_t>(B));  // caller's row of each working row
  for (std::int64_t i = 0; i < B; ++i) active[std::size_t(i)] = i;

  const auto constants = decoding_constants(dec, options.allow_end, /*best_only=*/true);
  for (std::int64_t t = 0; t <= max_len && !active.empty(); ++t) {
    const auto b = std::int64_t(active.size());
    const auto step = decoding_step(dec, a, keys, prev, state, sample_mask(b, options, device), constants);
    std::vector<std::int64_t> keep, best(static_cast<std::size_t>(b));
    for (std::int64_t row = 0; row < b; ++row) {
      const auto [token, word_lp] = step.best(row);
      best[std::size_t(row)] = token;
      auto& cap = out[std::size_t(active[std::size_t(row)])];
      if (token == Vocabulary::kEnd) {
        cap.log_prob += word_lp;
        cap.finished = true;
      } else if (t < max_len) {
        cap.words.push_back(make_word(token, word_lp, step, row));
        cap.log_prob += word_lp;
        keep.push_back(row);
      }
    }
    if (keep.empty()) break;
    // The next words and, when some captions ended, the rows that go on: one upload.
    std::vector<std::int64_t> upload;
    for (auto row : keep) upload.push_back(best[std::size_t(row)]);
    const bool drop = keep.size() != std::size_t(b);
    if (drop) upload.insert(upload.end(), keep.begin(), keep.end());
    const auto on_device = torch::tensor(upload, torch::kLong).to(device);
    prev = on_device.narrow(0, 0, std::int64_t(keep.size()));
    state = step.state;
    if (drop) {  // drop finished rows from the work
      const auto idx = on_device.narrow(0, std::int64_t(keep.size()), std::int64_t(keep.size()));
      a = a.index_select(0, idx);
      keys.projected = keys.projected.index_select(0, idx);
      if (keys.exponential.defined()) keys.exponential = keys.exponential.index_select(0, idx);
      state = select_rows(step.state, idx);
      std::vector<std::int64_t> next;
      for (auto row : keep) next.push_back(active[std::size_t(row)]);
      active.swap(next);
    }
  }
  return out;
}

namespace {

/// Indices of the `count` largest of v[0..n), largest first; ties keep the lower index first. One
/// pass over the k × K candidates of a beam step (a full topk sorted a copy of all of them).
std::vector<std::int64_t> largest_first(const double* v, std::int64_t n, std::int64_t count) {
  std::vector<std::pair<double, std::int64_t>> best;  // descending
  best.reserve(std::size_t(count) + 1);
  for (std::int64_t i = 0; i < n && count > 0; ++i) {
    const double x = v[i];
    if (std::int64_t(best.size()) == count && !(x > best.back().first)) continue;
    const auto at = std::upper_bound(best.begin(), best.end(), x, [](double a, const auto& p) { return a > p.first; });
    best.insert(at, {x, i});
    if (std::int64_t(best.size()) > count) best.pop_back();
  }
  std::vector<std::int64_t> out;
  for (const auto& p : best) out.push_back(p.second);
  return out;
}

/// A caption beam search is still extending.
struct Hypothesis {
  std::vector<DecodedWord> words;
  double score = 0;
  std::int64_t last = Vocabulary::kStart;
};

/// Each live hypothesis's score plus each word's log-probability, row by row, on the host in double.
std::vector<double> candidate_scores(const DecodingStep& step, const std::vector<Hypothesis>& live) {
  const auto b = std::int64_t(live.size());
  const auto K = step.vocab;
  std::vector<double> total(static_cast<std::size_t>(b * K));
  for (std::int64_t row = 0; row < b; ++row) {
    const float* lp = step.log_probs(row);
    for (std::int64_t w = 0; w < K; ++w) total[std::size_t(row * K + w)] = live[std::size_t(row)].score + double(lp[w]);
  }
  return total;
}

/// The beam after one step: at most k hypotheses taken from the best candidates `top`, and
/// the row of `step` each continues. A candidate that ends (<end>) goes to `finished` instead; at
/// the last step (`last`) none goes on.
struct BeamExtension {
  std::vector<Hypothesis> next;
  std::vector<std::int64_t> parents;
};
BeamExtension extend_beam(const std::vector<Hypothesis>& live, const DecodingStep& step, const std::vector<double>& total,
                          const std::vector<std::int64_t>& top, std::int64_t k, bool last,
                          std::vector<DecodedCaption>& finished) {
  const auto K = step.vocab;
  BeamExtension out;
  for (std::size_t c = 0; c < top.size() && std::int64_t(out.next.size()) < k; ++c) {
    const auto flat = top[c];
    const double score = total[std::size_t(flat)];
    if (!std::isfinite(score)) break;
    const auto parent = flat / K, token = flat % K;
    const float word_lp = step.log_probs(parent)[token];
    if (token == Vocabulary::kEnd) {
      DecodedCaption done;
      done.words = live[std::size_t(parent)].words;
      done.log_prob = score;
      done.finished = true;
      finished.push_back(std::move(done));
      continue;
    }
    if (last) continue;  // no room for another word
    Hypothesis h = live[std::size_t(parent)];
    h.words.push_back(make_word(token, word_lp, step, parent));
    h.score = score;
    h.last = token;
    out.next.push_back(std::move(h));
    out.parents.push_back(parent);
  }
  return out;
}

const DecodedCaption* best_finished(const std::vector<DecodedCaption>& finished) {
  if (finished.empty()) return nullptr;
  return &*std::max_element(finished.begin(), finished.end(), [](auto& x, auto& y) { return x.log_prob < y.log_prob; });
}

/// The words to continue from and, after them, their parents' rows in the state: one upload.
torch::Tensor words_and_parents_of(const BeamExtension& beam, const torch::Device& device) {
  std::vector<std::int64_t> upload;
  for (const auto& hyp : beam.next) upload.push_back(hyp.last);
  upload.insert(upload.end(), beam.parents.begin(), beam.parents.end());
  return torch::tensor(upload, torch::kLong).to(device);
}

}  // namespace

DecodedCaption beam_search(ShowAttendTellImpl& net, const torch::Tensor& annotations, const DecodeOptions& options) {
  TORCH_CHECK(annotations.dim() == 3 && annotations.size(0) == 1, "beam search takes one image's annotations (1, L, D), got ",
              annotations.sizes());
  TORCH_CHECK(options.beam >= 1, "beam width must be at least 1, got ", options.beam);
  torch::NoGradGuard no_grad;
  EvalModeGuard eval(net);
  auto& dec = *net.decoder;
  const auto device = annotations.device();
  const auto max_len = limit(net, options);
  const auto k = std::int64_t(options.beam);

  std::vector<Hypothesis> live(1);
  std::vector<DecodedCaption> finished;
  const auto keys1 = attention_keys(dec.project_annotations(annotations));
  auto state = dec.initial_state(annotations);

  const auto constants = decoding_constants(dec, options.allow_end);
  // On CUDA a step of k hypotheses replays a captured graph (core/decode/beam_step_graph.h).
  BeamStepGraph* graph = options.glimpse == Glimpse::Sampled ? nullptr
                                                             : BeamStepGraph::for_search(dec, annotations, keys1, constants, k);
  // The words to continue from and, after them, their parents' rows in `state`.
  auto words_and_parents = torch::tensor({Vocabulary::kStart, std::int64_t(0)}, torch::kLong).to(device);
  for (std::int64_t t = 0; t <= max_len; ++t) {
    const auto b = std::int64_t(live.size());
    DecodingStep step;
    if (graph && b == k) {
      step = graph->step(words_and_parents, state);
    } else {
      const auto a = annotations.expand({b, -1, -1});
      const AttentionKeys keys(keys1.projected.expand({b, -1, -1}),
                               keys1.exponential.defined() ? keys1.exponential.expand({b, -1, -1}) : torch::Tensor());
      const auto rows = select_rows(state, words_and_parents.narrow(0, b, b));
      step = decoding_step(dec, a, keys, words_and_parents.narrow(0, 0, b), rows, sample_mask(b, options, device),
                           constants);
    }
    const auto total = candidate_scores(step, live);
    const auto top = largest_first(total.data(), b * step.vocab, std::min<std::int64_t>(2 * k, b * step.vocab));
    auto beam = extend_beam(live, step, total, top, k, t == max_len, finished);
    const auto* best = best_finished(finished);
    // Scores only fall as words are added: once a finished caption beats every live one, stop. (Not
    // once k have finished: a live caption better than all of them would be lost, and a wider beam
    // could then return a worse caption than greedy.)
    if (beam.next.empty() || (best != nullptr && best->log_prob >= beam.next.front().score)) break;
    if (t == max_len) break;
    words_and_parents = words_and_parents_of(beam, device);
    state = step.state;
    live = std::move(beam.next);
  }
  if (const auto* best = best_finished(finished)) return *best;
  // No beam reached <end>: return the best unfinished hypothesis.
  DecodedCaption best;
  best.words = live.front().words;
  best.log_prob = live.front().score;
  best.finished = false;
  return best;
}

std::vector<DecodedCaption> decode_images(ShowAttendTellImpl& net, const torch::Tensor& images,
                                          const DecodeOptions& options) {
  torch::NoGradGuard no_grad;
  EvalModeGuard eval(net);
  return decode_annotations(net, net.encode(images), options);
}

std::vector<DecodedCaption> decode_annotations(ShowAttendTellImpl& net, const torch::Tensor& annotations,
                                               const DecodeOptions& options) {
  if (options.beam <= 1) return greedy_decode(net, annotations, options);
  std::vector<DecodedCaption> out;
  for (std::int64_t i = 0; i < annotations.size(0); ++i) {
    out.push_back(beam_search(net, annotations.narrow(0, i, 1), options));
  }
  return out;
}

}  // namespace fovea
