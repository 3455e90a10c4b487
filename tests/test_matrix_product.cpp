// The blocked product gives torch::mm's numbers for every layout and ragged shape, and
// linear_product gives torch::linear's values and gradients.
#include <gtest/gtest.h>

#include "core/model/matrix_product.h"
#include "core/runtime/runtime.h"
#include "core/runtime/torch_compat.h"
#include "core/runtime/vector_lanes.h"

using namespace fovea;

namespace {

/// a · b in double, the reference.
torch::Tensor reference(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::mm(a.to(torch::kDouble), b.to(torch::kDouble));
}

/// Largest |x − ref| relative to the reference's largest magnitude.
double relative_error(const torch::Tensor& x, const torch::Tensor& ref) {
  return (x.to(torch::kDouble) - ref).abs().max().item<double>() / ref.abs().max().item<double>();
}

}  // namespace

TEST(MatrixProduct, TheBlockedKernelRunsWhereThisProcessHasAvx2Lanes) {
  const auto a = torch::randn({300, 200}), b = torch::randn({200, 100});
  EXPECT_EQ(uses_blocked_product(a, b), vector_lanes() == VectorLanes::Avx2);
  EXPECT_FALSE(uses_blocked_product(torch::randn({4, 4}), torch::randn({4, 4})));  // too small to pay for packing
  EXPECT_FALSE(uses_blocked_product(a.to(torch::kDouble), b.to(torch::kDouble)));
}

TEST(MatrixProduct, MatchesADoubleReferenceForEveryLayoutAndRaggedShape) {
  torch::manual_seed(3);
  // Rows not a multiple of 6 or of the 144-row block, columns not a multiple of 16, reductions
  // not a multiple of 8 and longer than one packed block (several depth steps), and more columns
  // than one 4080-column block.
  const std::vector<std::array<std::int64_t, 3>> shapes = {{151, 1203, 37}, {6, 16, 4096},  {293, 45, 1100},
                                                           {97, 4099, 64},  {1, 5000, 900}, {700, 3, 2500}};
  for (const auto& [M, K, N] : shapes) {
    const auto a = torch::randn({M, K}), b = torch::randn({K, N});
    const auto at = torch::randn({K, M}).t(), bt = torch::randn({N, K}).t();  // transposed views
    // Views with rows further apart than their length (a slice of a wider matrix).
    const auto a_slice = torch::randn({M, K + 9}).narrow(1, 4, K), b_slice = torch::randn({K, N + 5}).narrow(1, 2, N);
    for (const auto& [x, y] : std::vector<std::pair<torch::Tensor, torch::Tensor>>{
             {a, b}, {at, b}, {a, bt}, {at, bt}, {a_slice, b_slice}, {a_slice, bt}}) {
      const auto c = matrix_product(x, y);
      ASSERT_EQ(c.sizes(), (std::vector<std::int64_t>{M, N}));
      EXPECT_LT(relative_error(c, reference(x, y)), 1e-5)
          << M << "×" << K << " by " << K << "×" << N << ", strides " << x.strides() << " and " << y.strides()
          << (uses_blocked_product(x, y) ? " (blocked)" : " (torch::mm)");
    }
  }
}

TEST(MatrixProduct, SpecialValuesPropagateToTheirRowsAndColumnsOnly) {
  auto a = torch::randn({200, 300}), b = torch::randn({300, 100});
  ASSERT_EQ(uses_blocked_product(a, b), vector_lanes() == VectorLanes::Avx2);
  a[7][11] = std::numeric_limits<float>::quiet_NaN();
  b[13][29] = std::numeric_limits<float>::infinity();
  const auto c = matrix_product(a, b);
  EXPECT_TRUE(c[7].isnan().all().item<bool>());
  EXPECT_EQ(c.isnan().sum().item<std::int64_t>(), 100 + (a.select(1, 13) == 0).sum().item<std::int64_t>());
  EXPECT_TRUE(torch::isinf(c.select(1, 29).narrow(0, 0, 7)).all().item<bool>());
  EXPECT_TRUE(torch::isfinite(c.select(1, 28)).narrow(0, 8, 192).all().item<bool>());
}

TEST(MatrixProduct, RejectsMismatchedShapes) {
  EXPECT_THROW(matrix_product(torch::randn({3, 4}), torch::randn({5, 6})), c10::Error);
  EXPECT_THROW(matrix_product(torch::randn({3, 4, 5}), torch::randn({5, 6})), c10::Error);
}

TEST(MatrixProduct, LinearProductMatchesTorchLinearInValueAndGradients) {
  torch::manual_seed(4);
  for (const bool with_bias : {true, false}) {
    const auto x0 = torch::randn({519, 300}), w0 = torch::randn({130, 300}), b0 = torch::randn({130});
    const auto g = torch::randn({519, 130});
    auto run = [&](bool fovea) {
      auto x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
      const auto bias = with_bias ? b : torch::Tensor();
      const auto y = fovea ? linear_product(x, w, bias) : torch::linear(x, w, bias);
      (y * g).sum().backward();
      return std::vector<torch::Tensor>{y.detach(), x.grad(), w.grad(), b.grad()};
    };
    const auto ours = run(true), theirs = run(false);
    const char* names[] = {"y", "dx", "dW", "db"};
    for (int i = 0; i < (with_bias ? 4 : 3); ++i) {
      EXPECT_LT(relative_error(ours[i], theirs[i].to(torch::kDouble)), 1e-5)
          << names[i] << (with_bias ? " with bias" : "");
    }
  }
  // Without autograd, and for inputs it does not take (3-D), the same numbers as torch::linear.
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({4, 60, 300}), w = torch::randn({130, 300}), b = torch::randn({130});
  EXPECT_TRUE(torch::allclose(linear_product(x, w, b), torch::linear(x, w, b), 1e-4, 1e-4));
  EXPECT_TRUE(torch::allclose(linear_product(x[0], w, b), torch::linear(x[0], w, b), 1e-4, 1e-4));
}

TEST(MatrixProduct, LinearProductLeavesCpuAutocastItsBf16Products) {
  if (!cpu_has_native_bf16()) GTEST_SKIP() << "no native bf16 products on this CPU (or oneDNN is capped below them)";
  const auto x = torch::randn({300, 200}), w = torch::randn({100, 200}), b = torch::randn({100});
  compat::CpuBf16Autocast bf16;
  const auto y = linear_product(x, w, b);
  EXPECT_EQ(y.scalar_type(), torch::linear(x, w, b).scalar_type());
  EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
}
