#include "core/decode/decoding.h"

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

/// Log-probabilities with <pad> and <start> ruled out.
torch::Tensor word_log_probs(DecoderImpl& dec, const torch::Tensor& emb, const AttendResult& r, bool allow_end) {
  auto lp = torch::log_softmax(dec.output_logits(emb, r.state.h, r.context), 1);
  lp.select(1, Vocabulary::kPad).fill_(-std::numeric_limits<float>::infinity());
  lp.select(1, Vocabulary::kStart).fill_(-std::numeric_limits<float>::infinity());
  if (!allow_end) lp.select(1, Vocabulary::kEnd).fill_(-std::numeric_limits<float>::infinity());
  return lp;
}

DecoderState select_rows(const DecoderState& s, const torch::Tensor& idx) {
  return {s.h.index_select(0, idx), s.c.index_select(0, idx)};
}

torch::Tensor sample_mask(std::int64_t b, const DecodeOptions& o, const torch::Device& d) {
  if (o.glimpse != Glimpse::Sampled) return {};
  return torch::ones({b}, torch::TensorOptions().dtype(torch::kBool).device(d));
}

DecodedWord make_word(std::int64_t token, float lp, const AttendResult& r, std::int64_t row,
                      const torch::Tensor& alpha_cpu, const torch::Tensor& beta_cpu, const torch::Tensor& glimpse_cpu) {
  DecodedWord w;
  w.token = token;
  w.log_prob = lp;
  w.beta = beta_cpu[row].item<float>();
  w.glimpse = glimpse_cpu[row].item<std::int64_t>();
  auto a = alpha_cpu[row];
  w.alpha.assign(a.data_ptr<float>(), a.data_ptr<float>() + a.numel());
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

  for (std::int64_t t = 0; t <= max_len && !active.empty(); ++t) {
    const auto b = std::int64_t(active.size());
    auto emb = dec.embed(prev);
    auto gates = dec.decoding_word_gates(prev, emb);
    auto r = dec.attend_and_step(a, keys, gates, state, sample_mask(b, options, device));
    auto lp = word_log_probs(dec, emb, r, options.allow_end);
    auto [best_lp, best] = lp.max(1);
    auto best_cpu = best.cpu(), lp_cpu = best_lp.cpu(), alpha_cpu = r.alpha.to(torch::kCPU, torch::kFloat).contiguous();
    auto beta_cpu = r.beta.cpu(), glimpse_cpu = r.glimpse.cpu();
    std::vector<std::int64_t> keep;
    for (std::int64_t row = 0; row < b; ++row) {
      auto& cap = out[std::size_t(active[std::size_t(row)])];
      const auto token = best_cpu[row].item<std::int64_t>();
      const auto word_lp = lp_cpu[row].item<float>();
      if (token == Vocabulary::kEnd) {
        cap.log_prob += word_lp;
        cap.finished = true;
      } else if (t < max_len) {
        cap.words.push_back(make_word(token, word_lp, r, row, alpha_cpu, beta_cpu, glimpse_cpu));
        cap.log_prob += word_lp;
        keep.push_back(row);
      }
    }
    if (keep.size() != std::size_t(b)) {  // drop finished rows from the work
      auto idx = torch::tensor(keep, torch::kLong).to(device);
      a = a.index_select(0, idx);
      keys.projected = keys.projected.index_select(0, idx);
      if (keys.exponential.defined()) keys.exponential = keys.exponential.index_select(0, idx);
      state = select_rows(r.state, idx);
      prev = best.index_select(0, idx);
      std::vector<std::int64_t> next;
      for (auto row : keep) next.push_back(active[std::size_t(row)]);
      active.swap(next);
    } else {
      state = r.state;
      prev = best;
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

  struct Hyp {
    std::vector<DecodedWord> words;
    double score = 0;
    std::int64_t last = Vocabulary::kStart;
  };
  std::vector<Hyp> live(1);
  std::vector<DecodedCaption> finished;
  const auto keys1 = attention_keys(dec.project_annotations(annotations));
  auto state = dec.initial_state(annotations);

  for (std::int64_t t = 0; t <= max_len; ++t) {
    const auto b = std::int64_t(live.size());
    auto a = annotations.expand({b, -1, -1});
    const AttentionKeys keys(keys1.projected.expand({b, -1, -1}),
                             keys1.exponential.defined() ? keys1.exponential.expand({b, -1, -1}) : torch::Tensor());
    std::vector<std::int64_t> last;
    std::vector<double> scores;
    for (const auto& h : live) last.push_back(h.last), scores.push_back(h.score);
    auto prev = torch::tensor(last, torch::kLong).to(device);
    auto emb = dec.embed(prev);
    auto gates = dec.decoding_word_gates(prev, emb);
    auto r = dec.attend_and_step(a, keys, gates, state, sample_mask(b, options, device));
    auto lp = word_log_probs(dec, emb, r, options.allow_end);
    lp = lp.to(torch::kDouble);
    const auto K = lp.size(1);
    auto total = (lp + torch::tensor(scores, torch::kDouble).to(device).unsqueeze(1)).view({-1}).cpu().contiguous();
    auto lp_cpu = lp.cpu().contiguous();
    const double* total_at = total.data_ptr<double>();
    const double* lp_at = lp_cpu.data_ptr<double>();
    const auto top = largest_first(total_at, total.numel(), std::min<std::int64_t>(2 * k, b * K));
    auto alpha_cpu = r.alpha.to(torch::kCPU, torch::kFloat).contiguous(), beta_cpu = r.beta.cpu(), glimpse_cpu = r.glimpse.cpu();

    std::vector<Hyp> next;
    std::vector<std::int64_t> parents;
    for (std::size_t c = 0; c < top.size() && std::int64_t(next.size()) < k; ++c) {
      const auto flat = top[c];
      const double score = total_at[flat];
      if (!std::isfinite(score)) break;
      const auto parent = flat / K, token = flat % K;
      const float word_lp = float(lp_at[flat]);
      if (token == Vocabulary::kEnd) {
        DecodedCaption done;
        done.words = live[std::size_t(parent)].words;
        done.log_prob = score;
        done.finished = true;
        finished.push_back(std::move(done));
        continue;
      }
      if (t == max_len) continue;  // no room for another word
      Hyp h = live[std::size_t(parent)];
      h.words.push_back(make_word(token, word_lp, r, parent, alpha_cpu, beta_cpu, glimpse_cpu));
      h.score = score;
      h.last = token;
      next.push_back(std::move(h));
      parents.push_back(parent);
    }
    const double best_finished = finished.empty() ? -std::numeric_limits<double>::infinity()
                                                  : std::max_element(finished.begin(), finished.end(), [](auto& x, auto& y) {
                                                      return x.log_prob < y.log_prob;
                                                    })->log_prob;
    // Scores only fall as words are added: once a finished caption beats every live one, stop.
    if (next.empty() || std::int64_t(finished.size()) >= k || best_finished >= next.front().score) {
      if (!finished.empty() || next.empty()) break;
    }
    if (t == max_len) break;
    auto idx = torch::tensor(parents, torch::kLong).to(device);
    state = select_rows(r.state, idx);
    live = std::move(next);
  }
  if (!finished.empty()) {
    return *std::max_element(finished.begin(), finished.end(), [](auto& x, auto& y) { return x.log_prob < y.log_prob; });
  }
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
