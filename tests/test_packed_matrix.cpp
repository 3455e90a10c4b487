// The packed per-step products give torch::mm's numbers for every row count and shape.
#include <gtest/gtest.h>

#include "core/model/packed_matrix.h"
#include "core/runtime/vector_lanes.h"

using namespace fovea;

TEST(PackedMatrix, MatchesTorchMmForEveryRowCountBothOrientationsAndRaggedShapes) {
  if (!PackedMatrix::available()) GTEST_SKIP() << "no AVX2/AVX-512 kernel on this CPU";
  torch::NoGradGuard no_grad;
  torch::manual_seed(5);
  // 45 columns: one full AVX-512 panel and a partial one (two full AVX2 panels and a partial one);
  // 37-long reductions are not a multiple of any vector width.
  const auto weight = torch::randn({45, 37});
  const PackedMatrix times_transposed(weight, /*transposed=*/true);  // x Wᵀ: x (M, 37)
  const PackedMatrix times_weight(weight, /*transposed=*/false);     // y W:  y (M, 45)
  for (std::int64_t rows = 1; rows <= 40; ++rows) {
    const auto x = torch::randn({rows, 37});
    const auto y = torch::randn({rows, 45});
    EXPECT_TRUE(torch::allclose(times_transposed.multiply(x), torch::mm(x, weight.t()), 1e-5, 1e-5)) << rows << " rows";
    EXPECT_TRUE(torch::allclose(times_weight.multiply(y), torch::mm(y, weight), 1e-5, 1e-5)) << rows << " rows";
  }
  // More rows than the kernel takes go to torch::mm; non-contiguous inputs are read correctly.
  const auto many = torch::randn({PackedMatrix::kMaxRows + 3, 37});
  EXPECT_TRUE(torch::allclose(times_transposed.multiply(many), torch::mm(many, weight.t()), 1e-5, 1e-5));
  const auto wide = torch::randn({7, 80});
  const auto slice = wide.narrow(1, 20, 37);
  EXPECT_TRUE(torch::allclose(times_transposed.multiply(slice), torch::mm(slice, weight.t()), 1e-5, 1e-5));
}

TEST(PackedMatrix, KeepsItsOwnCopyOfTheWeight) {
  if (!PackedMatrix::available()) GTEST_SKIP() << "no AVX2/AVX-512 kernel on this CPU";
  torch::NoGradGuard no_grad;
  auto weight = torch::randn({64, 16});
  const auto before = weight.clone();
  const PackedMatrix packed(weight, true);
  weight.add_(1.0);  // an optimizer step after packing: the packed products keep the packed values
  const auto x = torch::randn({4, 16});
  EXPECT_TRUE(torch::allclose(packed.multiply(x), torch::mm(x, before.t()), 1e-5, 1e-5));
}

TEST(PackedMatrix, RejectsWhatItCannotPack) {
  if (!PackedMatrix::available()) GTEST_SKIP() << "no AVX2/AVX-512 kernel on this CPU";
  EXPECT_THROW(PackedMatrix(torch::randn({3, 4, 5}), true), c10::Error);
  EXPECT_THROW(PackedMatrix(torch::randn({3, 4}, torch::kDouble), true), c10::Error);
  const PackedMatrix packed(torch::randn({8, 4}), true);
  EXPECT_THROW(packed.multiply(torch::randn({2, 5})), c10::Error);
}
