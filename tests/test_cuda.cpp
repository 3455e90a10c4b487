// GPU tests: named *_CUDA and skipped where no GPU is present.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/decode/decoding.h"
#include "core/model/checkpoint.h"
#include "core/model/decoder.h"
#include "core/runtime/thread_generator.h"
#include "core/train/objectives.h"
#include "tests/test_support.h"

using namespace fovea;

TEST(Device, TrainStepAndDecodingMatchTheCpu_CUDA) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  torch::manual_seed(4);
  auto cpu = CaptionModel::create(test::tiny_model(), test::test_vocab(10), torch::kCPU);
  test::TempDir dir("cuda");
  save_checkpoint(dir / "m.ckpt", cpu);
  auto gpu = load_checkpoint(dir / "m.ckpt", torch::kCUDA).model;
  cpu.net->eval();
  auto images = torch::rand({3, 3, 32, 32});
  auto tokens = torch::tensor({{1, 5, 6, 2}, {1, 7, 2, 0}, {1, 8, 9, 2}});
  auto lengths = torch::tensor({3, 2, 3});
  auto out_cpu = cpu.net->forward(images, tokens, lengths);
  auto out_gpu = gpu.net->forward(images.cuda(), tokens.cuda(), lengths.cuda());
  EXPECT_TRUE(torch::allclose(out_cpu.token_log_probs, out_gpu.token_log_probs.cpu(), 1e-4, 1e-4));
  auto loss = soft_objective(out_gpu, {}).loss;
  loss.backward();
  for (auto& p : gpu.net->trainable_parameters()) EXPECT_TRUE(p.grad().defined() ? p.grad().is_cuda() : true);
  DecodeOptions o;
  o.beam = 3;
  auto a = decode_images(*cpu.net, images, o);
  auto b = decode_images(*gpu.net, images.cuda(), o);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].tokens(), b[i].tokens());
}

TEST(Device, HardSamplingOnTheGpu_CUDA) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  auto m = CaptionModel::create(test::tiny_model(AttentionKind::Hard), test::test_vocab(10), torch::kCUDA);
  auto out = m.net->forward(torch::rand({2, 3, 32, 32}).cuda(), torch::tensor({{1, 5, 2}, {1, 6, 2}}).cuda(),
                            torch::tensor({2, 2}).cuda(), torch::tensor({true, true}).cuda());
  EXPECT_TRUE((out.glimpses >= 0).all().item<bool>());
}

// The GPU's training recurrence (core/model/teacher_forced_recurrence.h, with CUDA's fused LSTM
// cell) gives the gradients the CPU's step-by-step path gives, soft and hard (glimpses drawn from
// the same CPU generator on both).
TEST(Device, RecurrenceGradientsMatchTheCpu_CUDA) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (auto kind : {AttentionKind::Soft, AttentionKind::Hard}) {
    torch::manual_seed(6);
    auto config = test::tiny_model(kind);
    config.annotation_dim = 8;
    config.grid_h = 2;
    config.grid_w = 3;
    config.vocab_size = 14;
    Decoder decoder(config);
    decoder->eval();
    const auto annotations = torch::randn({3, 6, 8});
    const auto tokens = torch::tensor({{1, 5, 6, 7, 2}, {1, 8, 2, 0, 0}, {1, 9, 10, 2, 0}});
    const auto lengths = torch::tensor({4, 2, 3});
    const auto sample = torch::tensor({true, false, true});
    auto grads = [&](const torch::Device& device) {
      decoder->to(device);
      decoder->zero_grad();
      ScopedThreadGenerator generator(3);
      auto out = decoder->forward(annotations.to(device), tokens.to(device), lengths.to(device),
                                  kind == AttentionKind::Hard ? sample.to(device) : torch::Tensor());
      (out.token_log_probs.sum() + out.log_p_glimpses.sum() + (out.alpha_sum - 1).pow(2).sum()).backward();
      std::vector<torch::Tensor> g;
      for (const auto& p : decoder->parameters()) g.push_back(p.grad().defined() ? p.grad().cpu() : torch::zeros_like(p).cpu());
      return g;
    };
    const auto on_cpu = grads(torch::kCPU);
    const auto on_gpu = grads(torch::kCUDA);
    for (std::size_t i = 0; i < on_cpu.size(); ++i) {
      EXPECT_TRUE(torch::allclose(on_gpu[i], on_cpu[i], 1e-3, 1e-5))
          << "parameter " << i << ", " << (kind == AttentionKind::Hard ? "hard" : "soft") << ": largest difference "
          << (on_gpu[i] - on_cpu[i]).abs().max().item<double>();
    }
  }
}

// Beam search replaying its captured step (core/decode/beam_step_graph.h) finds what it finds eagerly.
TEST(Device, BeamSearchGraphMatchesEagerSteps_CUDA) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  torch::manual_seed(8);
  auto m = CaptionModel::create(test::tiny_model(), test::test_vocab(10), torch::kCUDA);
  const auto images = torch::rand({3, 3, 32, 32}).cuda();
  DecodeOptions o;
  o.beam = 4;
  const auto graphed = decode_images(*m.net, images, o);
  setenv("FOVEA_CUDA_GRAPHS", "0", 1);
  const auto eager = decode_images(*m.net, images, o);
  unsetenv("FOVEA_CUDA_GRAPHS");
  for (std::size_t i = 0; i < eager.size(); ++i) {
    EXPECT_EQ(graphed[i].tokens(), eager[i].tokens());
    EXPECT_NEAR(graphed[i].log_prob, eager[i].log_prob, 1e-4);
  }
}
