// GPU tests: named *_CUDA and skipped where no GPU is present.
#include <gtest/gtest.h>

#include "core/decode/decoding.h"
#include "core/model/checkpoint.h"
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
