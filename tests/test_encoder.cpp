// The built-in encoder's grid: each annotation describes the pixels of the cell it is drawn over.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <nlohmann/json.hpp>

#include "core/model/encoder.h"

namespace fovea {
namespace {

/// Centre (row, column, in pixels) of the receptive field of annotation cell (i, j): the centre of
/// mass of the gradient of that annotation with respect to the image, with every convolution a
/// box filter and every unit active, so that the gradient is how much each pixel counts.
std::pair<double, double> receptive_field_centre(bool centred_cells, std::int64_t i, std::int64_t j,
                                                 std::vector<std::int64_t> strides = {}) {
  ModelConfig config;
  config.image_size = 112;
  config.encoder_widths = std::vector<std::int64_t>(std::max<std::size_t>(4, strides.size()), 1);
  config.encoder_strides = strides;
  config.centred_cells = centred_cells;
  Encoder encoder(config);
  encoder->eval();  // BatchNorm with its initial statistics: the identity (up to eps)
  {
    torch::NoGradGuard no_grad;
    for (auto& p : encoder->named_parameters()) {
      if (p.value().dim() == 4) p.value().fill_(1.0 / double(p.value()[0].numel()));
    }
  }
  auto image = torch::ones({1, 3, 112, 112}, torch::requires_grad());  // every unit positive: ReLU is the identity
  encoder->forward(image)[0][i * config.grid_w + j][0].backward();
  const auto weight = image.grad()[0].sum(0).to(torch::kDouble);  // (112, 112)
  const auto centres = torch::arange(112, torch::kDouble) + 0.5;   // pixel p spans [p, p+1)
  const double mass = weight.sum().item<double>();
  return {(weight.sum(1) * centres).sum().item<double>() / mass, (weight.sum(0) * centres).sum().item<double>() / mass};
}

TEST(Encoder, CentredCellsLookAtTheMiddleOfTheirOwnPixels) {
  // Cell (5, 5) spans pixels 40..47: its middle is at 44. Within half a pixel.
  const auto [row, col] = receptive_field_centre(true, 5, 5);
  EXPECT_NEAR(row, 44.0, 0.5);
  EXPECT_NEAR(col, 44.0, 0.5);
  const auto [row2, col2] = receptive_field_centre(true, 2, 11);
  EXPECT_NEAR(row2, 20.0, 0.5);
  EXPECT_NEAR(col2, 92.0, 0.5);
}

TEST(Encoder, CellsStayCentredWhereverTheStridedBlocksAre) {
  // A full-resolution block first, or one between the halvings: the same grid, the same centres
  // (+0.5 px from the middle of the cell, as with the default strides).
  for (const std::vector<std::int64_t>& strides :
       {std::vector<std::int64_t>{1, 2, 2, 2, 1}, std::vector<std::int64_t>{2, 2, 1, 2, 1}}) {
    const auto [row, col] = receptive_field_centre(true, 5, 5, strides);
    EXPECT_NEAR(row, 44.5, 0.05) << testing::PrintToString(strides);
    EXPECT_NEAR(col, 44.5, 0.05) << testing::PrintToString(strides);
  }
}

TEST(Encoder, StridesMustHalveTheImageExactlyThreeTimes) {
  ModelConfig config;
  config.encoder_widths = {8, 8, 8, 8};
  config.encoder_strides = {2, 2, 1, 1};
  EXPECT_THROW(config.validate(), std::invalid_argument);
  config.encoder_strides = {2, 2, 2};  // one per block
  EXPECT_THROW(config.validate(), std::invalid_argument);
  config.encoder_strides = {2, 2, 2, 3};
  EXPECT_THROW(config.validate(), std::invalid_argument);
  config.encoder_strides = {1, 2, 2, 2};
  EXPECT_NO_THROW(config.validate());
  Encoder encoder(config);
  EXPECT_EQ(config.grid_h, 14);
  EXPECT_EQ(model_config_from_json(to_json(config)).encoder_strides, config.encoder_strides);
}

TEST(Encoder, NewWidthsDropTheDefaultStridesButKeepStridesTheUserGave) {
  ModelConfig config;  // the default: eight blocks, eight strides
  config.encoder_widths = {8, 16, 32};
  ModelConfig given = config;
  config.fit_strides_to_widths(false);
  EXPECT_TRUE(config.encoder_strides.empty());
  EXPECT_EQ(config.block_strides(), (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_NO_THROW(config.validate());
  given.encoder_strides = {1, 2, 2, 2};  // typed, for four blocks: an error to report, not to repair
  given.fit_strides_to_widths(true);
  EXPECT_EQ(given.encoder_strides.size(), 4u);
  EXPECT_THROW(given.validate(), std::invalid_argument);
  ModelConfig same_count;
  same_count.encoder_widths.assign(8, 16);
  same_count.fit_strides_to_widths(false);  // the default's strides still fit eight blocks
  EXPECT_EQ(same_count.encoder_strides, ModelConfig().encoder_strides);
}

TEST(Encoder, SymmetricPaddingOfOlderModelsLooksHalfACellUpAndLeft) {
  const auto [row, col] = receptive_field_centre(false, 5, 5);
  EXPECT_NEAR(row, 44.0 - 3.5, 0.5);
  EXPECT_NEAR(col, 44.0 - 3.5, 0.5);
}

TEST(Encoder, ConfigsSavedBeforeCentredCellsKeepTheirPadding) {
  ModelConfig config;
  config.vocab_size = 10;
  config.annotation_dim = 128;
  config.grid_h = config.grid_w = 14;
  auto j = to_json(config);
  EXPECT_TRUE(model_config_from_json(j).centred_cells);
  j.erase("centred_cells");
  EXPECT_FALSE(model_config_from_json(j).centred_cells);
  // Same parameter names either way: weights load into both.
  ModelConfig a, b;
  b.centred_cells = false;
  Encoder ea(a), eb(b);
  EXPECT_EQ(ea->named_parameters().keys(), eb->named_parameters().keys());
}

// Frozen blocks compute what they did, but a backward stops above them: their parameters get no
// gradient (and so no Adam update), the blocks above get the same gradients as before.
TEST(Encoder, FrozenBlocksGiveTheSameAnnotationsAndNoGradient) {
  torch::manual_seed(3);
  ModelConfig config;
  config.image_size = 32;
  config.encoder_widths = {4, 8, 8, 8, 8};
  Encoder encoder(config);
  encoder->train();
  ASSERT_EQ(encoder->blocks(), 5);
  const auto images = torch::rand({2, 3, 32, 32});
  const auto weights = torch::randn({2, config.cells(), config.annotation_dim});
  auto backward = [&] {
    encoder->zero_grad();
    const auto a = encoder->forward(images);
    if (a.requires_grad()) (a * weights).sum().backward();
    return a.detach();
  };
  const auto all = backward();
  std::map<std::string, torch::Tensor> grads;
  for (const auto& p : encoder->named_parameters()) grads[p.key()] = p.value().grad().clone();

  encoder->freeze_blocks(3);  // blocks 0-2: modules cnn.0 to cnn.8
  const auto frozen = backward();
  // Frozen blocks run without gradients, through the fused batch norm (other rounding).
  EXPECT_TRUE(torch::allclose(frozen, all, 1e-4, 1e-5))
      << "freezing changed the forward: " << (frozen - all).abs().max().item<double>();
  std::size_t trained = 0;
  for (const auto& p : encoder->named_parameters()) {
    const auto module = std::stoi(p.key().substr(std::string("cnn.").size()));
    if (module < 9) {
      EXPECT_FALSE(p.value().grad().defined()) << p.key() << " got a gradient (or kept an earlier one)";
    } else {
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      const double largest = grads[p.key()].abs().max().item<double>();
      EXPECT_TRUE(torch::allclose(p.value().grad(), grads[p.key()], 1e-4, 1e-5 * largest))
          << p.key() << ": " << (p.value().grad() - grads[p.key()]).abs().max().item<double>() << " of " << largest;
      ++trained;
    }
  }
  EXPECT_EQ(trained, 6u) << "two blocks: a convolution's weight, a batch norm's weight and bias each";

  encoder->freeze_blocks(5);  // all: nothing to differentiate
  EXPECT_FALSE(encoder->forward(images).requires_grad());
  EXPECT_THROW(encoder->freeze_blocks(6), c10::Error);
}

TEST(Encoder, ForwardWithoutGradientsGivesTheSameAnnotations) {
  // Without gradients each block's batch norm and ReLU run fused, in place
  // (core/model/batch_norm_relu.h); with them, ATen's modules. Both modes of the batch norm.
  torch::manual_seed(4);
  ModelConfig config;
  config.image_size = 32;
  config.encoder_widths = {4, 8, 16, 16};
  Encoder with_grad(config), without_grad(config);
  {
    torch::NoGradGuard no_grad;
    for (const auto& p : with_grad->named_parameters()) without_grad->named_parameters()[p.key()].copy_(p.value());
  }
  const auto images = torch::rand({3, 3, 32, 32});
  for (const bool training : {true, false}) {
    with_grad->train(training);
    without_grad->train(training);
    const auto want = with_grad->forward(images);
    ASSERT_TRUE(want.requires_grad());
    torch::NoGradGuard no_grad;
    const auto got = without_grad->forward(images);
    EXPECT_TRUE(torch::allclose(got, want, 1e-4, 1e-5))
        << (training ? "training" : "eval") << ": largest difference " << (got - want).abs().max().item<double>();
  }
  for (const auto& b : with_grad->named_buffers()) {
    const auto got = without_grad->named_buffers()[b.key()];
    EXPECT_TRUE(b.value().is_floating_point() ? torch::allclose(got, b.value(), 1e-4, 1e-5) : torch::equal(got, b.value()))
        << b.key();
  }
}

}  // namespace
}  // namespace fovea
