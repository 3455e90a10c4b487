#include "core/model/batch_weight_gradients.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <vector>

#include "core/model/bf16_product.h"
#include "core/model/matrix_product.h"

namespace fovea {

namespace {

struct Open {
  BatchWeightGradients* gradients = nullptr;
  int part = 0;
};
thread_local Open open_scope;

/// Hand-overs of more rows than this are multiplied where they are: a part's product that deep
/// runs near the product's full rate on one thread (the attention projection's, 512 × 6,272 × 512:
/// 15.6 ms for two side by side, 13.3 for one over both parts' rows), and joining the rows would
/// only add their copy (19 of a corpus step's 59 ms of joint products at 12,544 rows).
constexpr std::int64_t kDeepestHandOver = 2048;

/// The rows of `ts` one after the other. In bf16, rounded into a buffer whose row count is a
/// multiple of kBf16DepthBlock, zeros after (the product's depth, taken whole by its fast path),
/// the rounding's copy doing the padding.
torch::Tensor stacked_rows(const std::vector<torch::Tensor>& ts, bool bf16) {
  if (!bf16) return ts.size() == 1 ? ts[0] : torch::cat(ts);
  std::int64_t rows = 0;
  for (const auto& t : ts) rows += t.size(0);
  const std::int64_t padded = (rows + kBf16DepthBlock - 1) / kBf16DepthBlock * kBf16DepthBlock;
  auto out = torch::empty({padded, ts[0].size(1)}, ts[0].options().dtype(torch::kBFloat16));
  std::vector<std::int64_t> starts(ts.size() + 1, 0);
  for (std::size_t i = 0; i < ts.size(); ++i) starts[i + 1] = starts[i] + ts[i].size(0);
  // The pieces (a part's rows at one word, or a whole part's) copied on all of the caller's threads.
  at::parallel_for(0, std::int64_t(ts.size()), 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const auto& t = ts[std::size_t(i)];
      out.narrow(0, starts[std::size_t(i)], t.size(0)).copy_(t);
    }
  });
  out.narrow(0, rows, padded - rows).zero_();
  return out;
}

}  // namespace

BatchWeightGradients::Scope::Scope(BatchWeightGradients* gradients, int part)
    : gradients_(open_scope.gradients), part_(open_scope.part) {
  if (gradients) open_scope = {gradients, part};
}

BatchWeightGradients::Scope::~Scope() { open_scope = {gradients_, part_}; }

bool BatchWeightGradients::defer(const torch::Tensor& weight, const std::vector<torch::Tensor>& dy,
                                 const std::vector<torch::Tensor>& x, bool bf16) {
  auto* self = open_scope.gradients;
  if (!self || !weight.is_leaf() || !weight.requires_grad() || !weight.is_cpu() || weight.dim() != 2 ||
      dy.size() != x.size()) {
    return false;
  }
  std::int64_t rows = 0;
  for (std::size_t i = 0; i < dy.size(); ++i) {
    const auto &d = dy[i], &v = x[i];
    if (!d.is_cpu() || !v.is_cpu() || d.dim() != 2 || v.dim() != 2 || d.size(0) != v.size(0) ||
        d.size(1) != weight.size(0) || v.size(1) != weight.size(1)) {
      return false;
    }
    rows += d.size(0);
  }
  if (rows > kDeepestHandOver) return false;
  std::lock_guard<std::mutex> lock(self->mutex_);
  auto& w = self->weights_[weight.unsafeGetTensorImpl()];
  if (!w.weight.defined()) w.weight = weight;
  w.bf16 = w.bf16 || bf16;
  w.terms.push_back({open_scope.part, dy, x});
  return true;
}

void BatchWeightGradients::finish() {
  RECORD_FUNCTION("fovea::BatchWeightGradients::finish", std::vector<c10::IValue>());
  torch::NoGradGuard no_grad;
  std::map<const void*, Terms> weights;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    weights.swap(weights_);
  }
  for (auto& [key, w] : weights) {
    // Part order, and each part's own order within it: the same sum from run to run.
    std::stable_sort(w.terms.begin(), w.terms.end(), [](const Term& a, const Term& b) { return a.part < b.part; });
    std::vector<torch::Tensor> dys, xs;
    for (const auto& t : w.terms) {
      dys.insert(dys.end(), t.dy.begin(), t.dy.end());
      xs.insert(xs.end(), t.x.begin(), t.x.end());
    }
    if (dys.empty()) continue;
    const auto dy = stacked_rows(dys, w.bf16), x = stacked_rows(xs, w.bf16);
    auto grad = w.bf16 ? bf16_matrix_product(dy.t(), x) : matrix_product(dy.t(), x);
    auto& g = w.weight.mutable_grad();
    if (g.defined()) {
      g.add_(grad);
    } else {
      g = grad.contiguous();
    }
  }
}

}  // namespace fovea
