// FusedAdam takes torch::optim::Adam's steps (to float rounding), keeps its state where Adam
// keeps it (checkpoints move between the two), and hands what it does not fuse to Adam itself.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "core/runtime/torch_compat.h"
#include "core/train/fused_adam.h"

using namespace fovea;

namespace {

/// Parameters of several sizes (one larger than a parallel chunk, one without a gradient).
std::vector<torch::Tensor> make_parameters() {
  torch::manual_seed(3);
  std::vector<torch::Tensor> ps;
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{300, 70}, {17}, {5, 3}, {4}}) {
    ps.push_back(torch::randn(shape).requires_grad_(true));
  }
  return ps;
}

std::vector<torch::Tensor> clones(const std::vector<torch::Tensor>& ps) {
  std::vector<torch::Tensor> out;
  for (const auto& p : ps) out.push_back(p.detach().clone().requires_grad_(true));
  return out;
}

/// The same gradients on both sets (the last parameter none), then a step of each optimizer.
void step_both(torch::optim::Optimizer& a, std::vector<torch::Tensor>& pa, torch::optim::Optimizer& b,
               std::vector<torch::Tensor>& pb, int step) {
  torch::manual_seed(100 + step);
  for (std::size_t i = 0; i + 1 < pa.size(); ++i) {
    const auto g = torch::randn(pa[i].sizes()) * (i == 1 ? 1e-4 : 1.0);  // one with tiny gradients
    pa[i].mutable_grad() = g.clone();
    pb[i].mutable_grad() = g.clone();
  }
  a.step();
  b.step();
}

double max_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).abs().max().item<double>());
  return d;
}

}  // namespace

TEST(FusedAdam, TakesAdamsStepsAndKeepsItsState) {
  auto fused_params = make_parameters();
  auto adam_params = clones(fused_params);
  const auto untouched = fused_params.back().detach().clone();
  torch::optim::AdamOptions options(1e-2);
  options.betas({0.9, 0.99}).eps(1e-8);
  FusedAdam fused(fused_params, options);
  torch::optim::Adam adam(adam_params, options);
  const auto version = fused_params.front()._version();
  for (int s = 0; s < 30; ++s) step_both(fused, fused_params, adam, adam_params, s);
  // Changed in place as far as anyone can tell: caches keyed by a tensor's version (the
  // decoder's decoding weights) see the new weights.
  EXPECT_GT(fused_params.front()._version(), version);
  // 30 steps of up to lr = 0.01 each: the weights moved by ~0.3, and agree to float rounding.
  EXPECT_GT(max_difference(fused_params, make_parameters()), 0.1);
  EXPECT_LT(max_difference(fused_params, adam_params), 1e-5);
  EXPECT_TRUE(torch::equal(fused_params.back(), untouched)) << "a parameter without a gradient moved";

  // The state is Adam's: saved from one, loaded into the other, the next steps still agree.
  std::stringstream saved;
  {
    torch::serialize::OutputArchive archive;
    fused.save(archive);
    archive.save_to(saved);
  }
  auto resumed_params = clones(fused_params);
  torch::optim::Adam resumed(resumed_params, options);
  torch::serialize::InputArchive archive;
  archive.load_from(saved);
  resumed.load(archive);
  for (int s = 30; s < 35; ++s) step_both(fused, fused_params, resumed, resumed_params, s);
  EXPECT_LT(max_difference(fused_params, resumed_params), 1e-5);
  for (std::size_t i = 0; i + 1 < fused_params.size(); ++i) {
    const auto& st = static_cast<torch::optim::AdamParamState&>(
        *fused.state().at(compat::optimizer_state_key(fused.state(), fused_params[i])));
    EXPECT_EQ(st.step(), 35) << i;
  }
}

// Weight decay is not fused: the step is Adam's own, bit for bit.
TEST(FusedAdam, LeavesWhatItDoesNotFuseToAdam) {
  auto fused_params = make_parameters();
  auto adam_params = clones(fused_params);
  torch::optim::AdamOptions options(1e-2);
  options.weight_decay(0.1);
  FusedAdam fused(fused_params, options);
  torch::optim::Adam adam(adam_params, options);
  for (int s = 0; s < 5; ++s) step_both(fused, fused_params, adam, adam_params, s);
  for (std::size_t i = 0; i < fused_params.size(); ++i) EXPECT_TRUE(torch::equal(fused_params[i], adam_params[i])) << i;
}

// clear_gradients drops the gradients: the next backward hands each weight its own (nothing added
// to the last step's), and a weight that gets none stays where it is, where Adam's momentum would
// have moved it on after a zeroing zero_grad().
TEST(FusedAdam, ClearedGradientsAreReplacedAndWeightsWithoutOneStay) {
  auto used_first = torch::randn({40, 3}).requires_grad_(true);
  auto used_second = torch::randn({7}).requires_grad_(true);
  FusedAdam adam(std::vector<torch::Tensor>{used_first, used_second}, torch::optim::AdamOptions(1e-2));
  (used_first * used_first).sum().backward();
  adam.step();
  clear_gradients(adam);
  EXPECT_FALSE(used_first.grad().defined());
  EXPECT_FALSE(used_second.grad().defined());

  const auto first_before = used_first.detach().clone();
  const auto second_before = used_second.detach().clone();
  (used_second * 3.0).sum().backward();
  EXPECT_TRUE(torch::equal(used_second.grad(), torch::full({7}, 3.0)));
  EXPECT_FALSE(used_first.grad().defined());
  adam.step();
  EXPECT_TRUE(torch::equal(used_first, first_before)) << "a weight without a gradient moved";
  EXPECT_GT((used_second - second_before).abs().min().item<double>(), 1e-3);
}

namespace {

/// A (rows, width) gradient touching a few rows, some twice (as two parts of a batch hand theirs),
/// and row 20 + step once: rows touched in an earlier step only.
torch::Tensor row_gradient(std::int64_t rows, std::int64_t width, int step) {
  torch::manual_seed(200 + step);
  const std::vector<std::int64_t> touched{3, 150, 3, rows - 1, 20 + step};
  const auto index = torch::tensor(touched, torch::kLong);
  return torch::sparse_coo_tensor(index.view({1, -1}), torch::randn({5, width}), {rows, width});
}

}  // namespace

// A gradient given as rows takes the step its dense form takes, bit for bit: the rows it does not
// touch still move by their moments (row 20, touched in the first step only). Where the step is
// not fused, it is made dense for Adam.
TEST(FusedAdam, AGradientGivenAsRowsTakesItsDenseFormsStep) {
  const std::int64_t rows = 300, width = 70;  // larger than a parallel chunk
  torch::manual_seed(5);
  auto by_rows = torch::randn({rows, width}).requires_grad_(true);
  auto dense = by_rows.detach().clone().requires_grad_(true);
  const auto start = by_rows.detach().clone();
  FusedAdam rows_adam(std::vector<torch::Tensor>{by_rows}, torch::optim::AdamOptions(1e-2));
  FusedAdam dense_adam(std::vector<torch::Tensor>{dense}, torch::optim::AdamOptions(1e-2));
  for (int s = 0; s < 4; ++s) {
    const auto g = row_gradient(rows, width, s);
    by_rows.mutable_grad() = g;
    dense.mutable_grad() = g.to_dense();
    rows_adam.step();
    dense_adam.step();
  }
  EXPECT_TRUE(torch::equal(by_rows, dense));
  // Rows never in a gradient stayed; the touched ones moved (by ~lr a step).
  EXPECT_TRUE(torch::equal(by_rows[10], start[10]));
  EXPECT_GT((by_rows[150] - start[150]).abs().mean().item<double>(), 5e-3);

  torch::optim::AdamOptions amsgrad(1e-2);
  amsgrad.amsgrad(true);
  auto unfused = start.clone().requires_grad_(true), reference = start.clone().requires_grad_(true);
  FusedAdam fallback(std::vector<torch::Tensor>{unfused}, amsgrad);
  torch::optim::Adam adam(std::vector<torch::Tensor>{reference}, amsgrad);
  unfused.mutable_grad() = row_gradient(rows, width, 0);
  reference.mutable_grad() = unfused.grad().to_dense();
  fallback.step();
  adam.step();
  EXPECT_TRUE(torch::equal(unfused, reference));
}
