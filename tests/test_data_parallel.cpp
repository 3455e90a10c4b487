// Data-parallel training (core/train/data_parallel.h): `fovea train --processes 2` against one
// process with the same global batch. fp32; dropout 0 and a fixed TorchScript backbone (no
// batch norm), so the two runs differ only in how the sums are ordered.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/model/checkpoint.h"
#include "core/train/data_parallel.h"
#include "tests/test_support.h"
#include "tests/tiny_backbone.h"

using namespace fovea;

#ifdef FOVEA_BIN
namespace {

int run_fovea(const std::string& args, const std::string& log) {
  const std::string command = "OMP_NUM_THREADS=1 " + std::string(FOVEA_BIN) + " train " + args + " > " + log + " 2>&1";
  return std::system(command.c_str());
}

std::string cat(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<nlohmann::json> records(const std::string& path, const std::string& kind) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.value("kind", "") == kind) out.push_back(j);
  }
  return out;
}

/// Adam's first moment of `p`, (1 - beta1) * the step's clipped gradient after one step.
template <class Optimizer>
torch::Tensor first_moment(Optimizer& adam, const torch::Tensor& p) {
  auto& state = adam.state();
  const auto key = compat::optimizer_state_key(state, p);
  const auto it = state.find(key);
  if (it == state.end()) return {};
  return static_cast<torch::optim::AdamParamState&>(*it->second).exp_avg();
}

/// The first moments of a run's last.ckpt, in the order of its trainable parameters.
std::vector<torch::Tensor> first_moments(const std::string& run) {
  auto ckpt = load_checkpoint(run + "/last.ckpt");
  auto params = ckpt.model.net->trainable_parameters();
  torch::optim::Adam adam(params, torch::optim::AdamOptions(1e-3));
  restore_training_state(ckpt, adam, torch::kCPU);
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(first_moment(adam, p));
  return out;
}

}  // namespace

TEST(DataParallel, TwoProcessesTakeTheStepOneProcessTakesWithTheWholeBatch) {
  test::TempDir dir("data-parallel");
  torch::manual_seed(3);
  const auto backbone = test::write_tiny_backbone(dir / "backbone.pt");
  // Soft attention with every loss term on: NLL + penalty (means over captions), attention
  // supervision (a mean over supervised words, which the shares hold unequal numbers of) and the
  // auxiliary losses (means over cells and over objects).
  const std::string recipe = "--image-size 32 --backbone " + backbone +
                             " --embed-dim 16 --attention-dim 16 --hidden-dim 48 --dropout 0 --train-scenes 32 "
                             "--val-scenes 8 --batch 16 --lr 0.01 --precision fp32 --pretrain-steps 0 --max-steps 1 "
                             "--seed 5";
  ASSERT_EQ(run_fovea("--out " + dir / "one " + recipe, dir / "one.log"), 0) << cat(dir / "one.log");
  ASSERT_EQ(run_fovea("--processes 2 --out " + dir / "two " + recipe, dir / "two.log"), 0) << cat(dir / "two.log");
  EXPECT_NE(cat(dir / "two.log").find("2 processes, 8 images each a step"), std::string::npos) << cat(dir / "two.log");

  // The logged step: the whole batch's loss terms and gradient norm, once (only the first process writes).
  const auto one = records(dir / "one/metrics.jsonl", "train");
  const auto two = records(dir / "two/metrics.jsonl", "train");
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u) << cat(dir / "two/metrics.jsonl");
  for (const char* term : {"loss", "nll", "penalty", "aux_loss", "attention_loss", "grad_norm"}) {
    const double a = one[0].at(term).get<double>(), b = two[0].at(term).get<double>();
    EXPECT_NEAR(b, a, 1e-5 * std::max(1.0, std::abs(a))) << term;
  }
  EXPECT_GT(one[0].at("attention_loss").get<double>(), 0);
  EXPECT_GT(one[0].at("aux_loss").get<double>(), 0);
  EXPECT_EQ(records(dir / "two/metrics.jsonl", "val").size(), 1u);

  // The gradients themselves, through Adam's first moment in last.ckpt.
  const auto g1 = first_moments(dir / "one"), g2 = first_moments(dir / "two");
  ASSERT_EQ(g1.size(), g2.size());
  double largest = 0;  // the largest gradient element: rounding differences are relative to it
  for (const auto& g : g1) {
    if (g.defined()) largest = std::max(largest, g.abs().max().item<double>());
  }
  ASSERT_GT(largest, 0);
  std::size_t compared = 0;
  for (std::size_t i = 0; i < g1.size(); ++i) {
    ASSERT_EQ(g1[i].defined(), g2[i].defined()) << "parameter " << i;
    if (!g1[i].defined()) continue;
    ++compared;
    EXPECT_LE((g1[i] - g2[i]).abs().max().item<double>(), 1e-5 * largest) << "parameter " << i;
  }
  EXPECT_GT(compared, 10u);
  // Every replica stepped from the same weights: the two runs' weights are equal after the step
  // wherever the gradient is clearly not zero (Adam's first step moves by the gradient's sign).
  auto w1 = load_checkpoint(dir / "one/last.ckpt").model.net->trainable_parameters();
  auto w2 = load_checkpoint(dir / "two/last.ckpt").model.net->trainable_parameters();
  for (std::size_t i = 0; i < w1.size(); ++i) {
    if (!g1[i].defined()) continue;
    const auto clear = g1[i].abs() > 1e-3 * largest;
    if (!clear.any().item<bool>()) continue;
    EXPECT_LE((w1[i] - w2[i]).abs().masked_select(clear).max().item<double>(), 1e-6) << "parameter " << i;
  }
}

TEST(DataParallel, ABatchThatDoesNotDivideAmongTheProcessesIsNamed) {
  test::TempDir dir("data-parallel-batch");
  const int rc = run_fovea("--processes 2 --out " + dir / "run" +
                               " --backbone none --image-size 32 --encoder-widths 8,16,32 --train-scenes 32 --val-scenes 8 --batch 15 "
                               "--pretrain-steps 0 --max-steps 1",
                           dir / "log");
  EXPECT_NE(rc, 0);
  const auto log = cat(dir / "log");
  const std::string message = "the batch (15 images) does not divide among 2 processes";
  const auto at = log.find(message);
  EXPECT_NE(at, std::string::npos) << log;
  // Said once, by the launcher, before it starts any process (each of them said it, over one another).
  EXPECT_EQ(log.find(message, at + 1), std::string::npos) << log;
  EXPECT_EQ(log.find("(pid "), std::string::npos) << "no process was started: " << log;
  EXPECT_FALSE(std::filesystem::exists(dir / "run")) << "nothing written";
}
#endif
