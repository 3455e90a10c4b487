#include "core/train/decoder_pass.h"

#include <ATen/ThreadLocalState.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <exception>
#include <numeric>
#include <optional>
#include <thread>

#include "core/model/batch_weight_gradients.h"
#include "core/model/bf16_product.h"
#include "core/model/kept_buffer.h"
#include "core/model/word_gradient_rows.h"
#include "core/runtime/runtime.h"
#include "core/runtime/thread_generator.h"

// Weak: LibTorch's OpenMP runtime when it has one (null otherwise).
extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace fovea {
namespace {

constexpr std::int64_t kMinCaptionsPerPart = 16;

/// One part of the batch and what its forward produced.
struct Part {
  torch::Tensor rows;         ///< indices into the batch
  torch::Tensor annotations;  ///< a leaf: its gradient is the part's share of annotations_grad
  std::uint64_t seed = 0;
  DecoderOutput out;
  ObjectiveTerms terms;
  AttentionSupervisionSum supervision;
  torch::Tensor weights;      ///< the part's caption weights (self-critical), or undefined
};

/// Rows of each part: captions sorted by length and dealt out back and forth (0, 1, 1, 0, 0, 1,
/// ...), so each part has the same number of captions and about the same number of words (dealt
/// in turn, 0, 1, 0, 1, the first part got the longer caption of every pair and finished last).
std::vector<torch::Tensor> deal_rows(const torch::Tensor& lengths, int parts) {
  const auto order = std::get<1>(lengths.to(torch::kCPU).sort(/*stable=*/true, 0, /*descending=*/true));
  const auto sorted = order.accessor<std::int64_t, 1>();
  std::vector<std::vector<std::int64_t>> dealt(static_cast<std::size_t>(parts));
  for (std::int64_t i = 0; i < order.size(0); ++i) {
    const std::int64_t round = i / parts, seat = i % parts;
    dealt[std::size_t(round % 2 == 0 ? seat : parts - 1 - seat)].push_back(sorted[i]);
  }
  std::vector<torch::Tensor> rows;
  for (const auto& d : dealt) rows.push_back(torch::tensor(d, torch::kLong));
  return rows;
}

/// The calling thread's own intra-op thread count. Under OpenMP the count is per thread, and
/// LibTorch sets a thread's from its global count the first time the thread asks for it (so ask
/// first). Without OpenMP (weak symbols null) the global count is all there is.
int this_thread_operator_threads() { return at::get_num_threads(); }

void set_this_thread_operator_threads(int n) {
  (void)at::get_num_threads();
  if (omp_set_num_threads != nullptr) {
    omp_set_num_threads(n);
  } else {
    at::set_num_threads(n);
  }
}

/// Threads that run the parts beside the calling thread, kept for the process (two hand-overs per
/// step instead of two thread starts); each keeps its own intra-op thread count.
class PartThreads {
  /// The calling thread's intra-op thread count while alive.
  class CallerThreads {
   public:
    explicit CallerThreads(int threads) : before_(this_thread_operator_threads()) {
      if (before_ != threads) set_this_thread_operator_threads(threads);
    }
    ~CallerThreads() {
      if (this_thread_operator_threads() != before_) set_this_thread_operator_threads(before_);
    }

   private:
    int before_;
  };

 public:
  static PartThreads& instance() {
    static PartThreads pool;
    return pool;
  }

  /// Runs f(k) for k < parts, f(0) on the calling thread and the others on workers, each with
  /// `threads_each` intra-op threads, and rethrows the first failure once all are done. Workers
  /// run under the caller's thread-local state, as at::parallel_for's threads do: its grad mode
  /// and autocast settings, and a profiler the caller started (which then records every part).
  void run(int parts, int threads_each, const std::function<void(int)>& f) {
    std::lock_guard<std::mutex> one_at_a_time(run_mutex_);
    while (int(workers_.size()) < parts - 1) workers_.push_back(std::make_unique<Worker>());
    std::vector<std::exception_ptr> errors(std::size_t(parts), nullptr);
    int left = parts - 1;
    std::mutex done_mutex;
    std::condition_variable done;
    const at::ThreadLocalState caller_state;
    for (int k = 1; k < parts; ++k) {
      workers_[std::size_t(k - 1)]->post(threads_each, [&, k] {
        try {
          at::ThreadLocalStateGuard state(caller_state);
          f(k);
        } catch (...) {
          errors[std::size_t(k)] = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(done_mutex);
        if (--left == 0) done.notify_one();
      });
    }
    {
      CallerThreads caller(threads_each);
      try {
        f(0);
      } catch (...) {
        errors[0] = std::current_exception();
      }
    }
    std::unique_lock<std::mutex> lock(done_mutex);
    done.wait(lock, [&] { return left == 0; });
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }

 private:
  class Worker {
   public:
    Worker() : thread_([this] { loop(); }) {}
    ~Worker() {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        quit_ = true;
      }
      wake_.notify_one();
      thread_.join();
    }
    void post(int threads, std::function<void()> task) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        threads_wanted_ = threads;
        task_ = std::move(task);
      }
      wake_.notify_one();
    }

   private:
    void loop() {
      int threads = 0;
      for (;;) {
        std::function<void()> task;
        int wanted = 0;
        {
          std::unique_lock<std::mutex> lock(mutex_);
          wake_.wait(lock, [&] { return quit_ || task_; });
          if (quit_) return;
          task = std::move(task_);
          task_ = nullptr;
          wanted = threads_wanted_;
        }
        if (wanted != threads) {
          set_this_thread_operator_threads(wanted);
          threads = wanted;
        }
        task();
      }
    }
    std::mutex mutex_;
    std::condition_variable wake_;
    std::function<void()> task_;
    int threads_wanted_ = 1;
    bool quit_ = false;
    std::thread thread_;  // last: starts once the members above exist
  };

  std::mutex run_mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

/// Runs f(k) for every part: on the calling thread for one part, else on PartThreads with the
/// caller's threads shared out and OpenBLAS (one pool for the process) on one thread meanwhile.
void run_parts(int parts, const std::function<void(int)>& f) {
  if (parts == 1) {
    f(0);
    return;
  }
  const int threads = at::get_num_threads();
  set_blas_threads(1);
  try {
    PartThreads::instance().run(parts, std::max(1, threads / parts), f);
  } catch (...) {
    set_blas_threads(threads);
    throw;
  }
  set_blas_threads(threads);
}

torch::Tensor select_rows(const torch::Tensor& t, const torch::Tensor& rows) {
  return t.defined() ? t.index_select(0, rows.to(t.device())) : t;
}

/// A part's annotations, selected on its own thread into the buffer it used the step before
/// (core/model/kept_buffer.h): 6.4 MB a part in a corpus step.
torch::Tensor select_part_annotations(const torch::Tensor& annotations, const torch::Tensor& rows) {
  thread_local torch::Tensor kept;
  const auto a = annotations.detach();  // a leaf of the part's own (part_annotations)
  auto sizes = a.sizes().vec();
  sizes[0] = rows.size(0);
  auto out = kept_buffer(kept, sizes, a.options());
  return torch::index_select_out(out, a, 0, rows.to(a.device()));
}

/// The whole batch's terms from its parts': per-caption means weighted by captions, per-token
/// means by tokens, reward statistics over all sampled captions.
ObjectiveTerms merge_terms(const std::vector<Part>& parts, std::int64_t batch, double baseline, bool hard) {
  ObjectiveTerms t;
  double tokens = 0;
  for (const auto& p : parts) tokens += double(p.terms.tokens);
  for (const auto& p : parts) {
    const double captions = double(p.rows.size(0)) / double(batch);
    const double share = double(p.terms.tokens) / std::max(1.0, tokens);
    t.objective += captions * p.terms.objective;
    t.penalty += captions * p.terms.penalty;
    t.nll += share * p.terms.nll;
    t.entropy += share * p.terms.entropy;
    t.tokens += p.terms.tokens;
    t.sampled += p.terms.sampled;
  }
  if (!hard) return t;
  const auto& first = parts.front().terms.rewards;
  t.rewards = torch::empty({batch}, first.options());
  auto sampled = torch::zeros({batch}, torch::TensorOptions().dtype(torch::kBool).device(first.device()));
  for (const auto& p : parts) {
    const auto rows = p.rows.to(first.device());
    t.rewards.index_copy_(0, rows, p.terms.rewards);
    sampled.index_copy_(0, rows, p.out.sampled);
  }
  if (t.sampled > 0) {
    const auto r = t.rewards.masked_select(sampled);
    t.reward = r.mean().item<double>();
    t.reward_var = t.sampled > 1 ? (r - baseline).var().item<double>() : 0.0;
  }
  return t;
}

/// What the loss is averaged over, and the terms the logs show: this process's batch, or with
/// sum_over_processes the whole batch of every process.
struct BatchTotals {
  ObjectiveTerms terms;
  double captions = 0, words = 0;  ///< captions, and words under attention supervision
  double supervision = 0;          ///< Σ over the supervised words of KL(u || α)
};

BatchTotals batch_totals(const std::vector<Part>& parts, std::int64_t batch, double baseline,
                         const DecoderPassOptions& options) {
  BatchTotals t;
  t.terms = parts.size() == 1 ? parts[0].terms : merge_terms(parts, batch, baseline, options.hard);
  t.captions = double(batch);
  for (const auto& p : parts) {
    t.words += double(p.supervision.words);
    if (p.supervision.sum.defined()) t.supervision += p.supervision.sum.item<double>();
  }
  if (!options.sum_over_processes) return t;
  // Each mean goes over the processes as a sum, weighted by what it is a mean over.
  double reward = 0, deviation = 0, deviation_sq = 0;
  if (options.hard) {
    for (const auto& p : parts) {
      const auto d = p.terms.rewards.masked_select(p.out.sampled.to(p.terms.rewards.device())).to(torch::kDouble) - baseline;
      reward += (d + baseline).sum().item<double>();
      deviation += d.sum().item<double>();
      deviation_sq += d.pow(2).sum().item<double>();
    }
  }
  auto& x = t.terms;
  std::vector<double> v{t.captions,        t.words,       t.supervision, double(x.tokens),
                        x.objective * t.captions,         x.penalty * t.captions,
                        x.nll * double(x.tokens),         x.entropy * double(x.tokens),
                        double(x.sampled), reward,        deviation,     deviation_sq};
  options.sum_over_processes(v);
  t.captions = v[0], t.words = v[1], t.supervision = v[2];
  const double tokens = std::max(1.0, v[3]);
  x.tokens = std::int64_t(std::llround(v[3]));
  x.objective = v[4] / v[0], x.penalty = v[5] / v[0];
  x.nll = v[6] / tokens, x.entropy = v[7] / tokens;
  x.sampled = std::int64_t(std::llround(v[8]));
  if (x.sampled > 0) {
    x.reward = v[9] / v[8];
    x.reward_var = x.sampled > 1 ? (v[11] - v[10] * v[10] / v[8]) / (v[8] - 1) : 0.0;
  }
  return t;
}

/// A part's annotations as its decoder reads them. Parts run float; so does a bf16 run's decoder,
/// whose products alone round to bf16. Where the annotations need no gradient (a corpus's cache, a
/// frozen encoder) a bf16 run rounds them once, here: the projection W_a a would round them
/// anyway, and the context Σ α a, read at every word, then reads half the bytes (a corpus's cached
/// values are bf16 already: exact). A leaf that takes its gradient when `needs_grad`.
torch::Tensor part_annotations(torch::Tensor a, bool several_parts, bool bf16, bool needs_grad) {
  a = a.detach();
  const bool rounded_once = bf16 && !needs_grad && a.device().is_cpu() && a.is_floating_point() &&
                            a.scalar_type() != torch::kDouble;
  if (rounded_once) {
    a = a.to(torch::kBFloat16);
  } else if ((several_parts && a.is_floating_point()) || a.scalar_type() == torch::kBFloat16) {
    a = a.to(torch::kFloat);
  }
  if (needs_grad) a.requires_grad_(true);
  return a;
}

/// The gradient of `annotations` (the whole batch's), from its parts' leaves.
torch::Tensor annotations_gradient(const std::vector<Part>& parts, const torch::Tensor& annotations) {
  if (parts.size() == 1) return parts[0].annotations.grad().to(annotations.scalar_type());
  auto grad = torch::zeros_like(annotations);
  for (const auto& p : parts) {
    grad.index_copy_(0, p.rows.to(annotations.device()), p.annotations.grad().to(annotations.scalar_type()));
  }
  return grad;
}

}  // namespace

int decoder_pass_parts(std::int64_t batch, const torch::Device& device) {
  if (!device.is_cpu()) return 1;
  const auto by_size = std::max<std::int64_t>(1, batch / kMinCaptionsPerPart);
  return int(std::max<std::int64_t>(1, std::min<std::int64_t>(at::get_num_threads(), by_size)));
}

DecoderPassResult decoder_pass(Decoder& decoder, const DecoderPassInput& in, const DecoderPassOptions& options,
                               MovingBaseline* baseline) {
  TORCH_CHECK(!options.hard || baseline != nullptr, "decoder_pass: hard attention needs a baseline");
  const auto B = in.annotations.size(0);
  const bool cpu = in.annotations.device().is_cpu();  // other devices run one part: their kernels queue anyway
  const int wanted = options.parts > 0 ? options.parts : decoder_pass_parts(B, in.annotations.device());
  const int n = cpu ? std::max(1, std::min<int>(wanted, int(B))) : 1;
  const bool supervise = options.supervision_weight > 0 && in.word_boxes.defined();
  const bool needs_grad = in.annotations.requires_grad();

  std::vector<Part> parts(static_cast<std::size_t>(n));
  const auto rows = n == 1 ? std::vector<torch::Tensor>{torch::arange(B)} : deal_rows(in.lengths, n);
  // Drawn from the global generator in part order: the parts' random numbers do not depend on
  // which thread gets where first. A batch in one part draws from the global generator itself.
  const auto seeds = n > 1 ? torch::randint(std::int64_t(1) << 62, {n}, torch::kLong) : torch::Tensor();
  for (int k = 0; k < n; ++k) {
    auto& p = parts[std::size_t(k)];
    p.rows = rows[std::size_t(k)];
    if (n > 1) p.seed = std::uint64_t(seeds[k].item<std::int64_t>());
  }

  const double baseline_value = baseline ? baseline->value : 0.0;
  auto forward = [&](int k) {
    auto& p = parts[std::size_t(k)];
    const auto& a = in.annotations;
    p.annotations = part_annotations(n == 1 ? a : select_part_annotations(a, p.rows), n > 1, options.bf16, needs_grad);
    std::optional<ScopedThreadGenerator> generator;
    if (n > 1) generator.emplace(p.seed);
    // bf16: the decoder's products in bf16 with float results (core/model/bf16_product.h), safe
    // in parts side by side; everything else in float. The encoder, outside, keeps CPU autocast.
    Bf16Products bf16(options.bf16);
    WordGradientRows word_rows(n > 1);  // the parts' embedding gradients as rows (see below)
    const auto pick = [&](const torch::Tensor& t) { return n == 1 ? t : select_rows(t, p.rows); };
    p.out = decoder->forward(p.annotations, pick(in.tokens), pick(in.lengths), pick(in.sample));
    p.weights = pick(in.caption_weights);
    p.terms = options.hard ? hard_objective(p.out, options.objective, baseline_value, p.weights)
                           : soft_objective(p.out, options.objective, p.weights);
    if (supervise) p.supervision = attention_supervision_sum(p.out, pick(in.word_boxes), pick(in.word_has_box));
  };
  run_parts(n, forward);

  DecoderPassResult result;
  result.parts = n;
  auto totals = batch_totals(parts, B, baseline_value, options);
  if (options.hard && totals.terms.sampled > 0 && !baseline->initialised) {
    // First sampled batch: start the baseline at its rewards instead of 0, then recompute.
    baseline->update(totals.terms.reward);
    for (auto& p : parts) p.terms = hard_objective(p.out, options.objective, baseline->value, p.weights);
    totals = batch_totals(parts, B, baseline->value, options);
  }
  result.terms = totals.terms;

  BatchWeightGradients weight_gradients;  // the parts' weight gradients, one product each below
  auto backward = [&](int k) {
    Bf16Products bf16(options.bf16);
    BatchWeightGradients::Scope deferred(n > 1 ? &weight_gradients : nullptr, k);
    auto& p = parts[std::size_t(k)];
    auto loss = p.terms.loss * (double(p.rows.size(0)) / totals.captions);
    if (supervise && totals.words > 0) loss = loss + p.supervision.sum * (options.supervision_weight / totals.words);
    loss.backward();
  };
  run_parts(n, backward);
  if (n > 1) {
    weight_gradients.finish();
    if (!options.word_gradient_rows) dense_gradients(decoder->parameters());
  }

  if (supervise && totals.words > 0) result.supervision = totals.supervision / totals.words;
  if (needs_grad) result.annotations_grad = annotations_gradient(parts, in.annotations);
  result.terms.loss = torch::Tensor();
  return result;
}

}  // namespace fovea
