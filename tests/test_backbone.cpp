// TorchScript backbones: loaded from a file, frozen or fine-tuned, and saved in checkpoints; a
// broken one (output not finite, or an empty grid) named when the model is made.
#include <gtest/gtest.h>
#include <torch/script.h>

#include <fstream>

#include "core/model/checkpoint.h"
#include "core/train/objectives.h"
#include "tests/test_support.h"
#include "tests/tiny_backbone.h"

using namespace fovea;

namespace {

torch::Tensor backbone_weight(CaptionModel& m) { return m.net->encoder->backbone_parameters().at(0).second; }

void train_one_step(CaptionModel& m) {
  torch::optim::Adam adam(m.net->trainable_parameters(), torch::optim::AdamOptions(1e-2));
  auto out = m.net->forward(torch::rand({2, 3, 32, 32}), torch::tensor({{1, 5, 6, 2}, {1, 7, 2, 0}}), torch::tensor({3, 2}));
  soft_objective(out, {}).loss.backward();
  adam.step();
}

}  // namespace

TEST(Backbone, FrozenBackboneGivesTheGridAndStaysFixed) {
  torch::manual_seed(2);
  test::TempDir dir("backbone");
  auto config = test::tiny_model();
  config.backbone_path = test::write_tiny_backbone(dir / "bb.pt");
  auto m = CaptionModel::create(config, test::test_vocab(8), torch::kCPU);
  EXPECT_EQ(m.config.annotation_dim, 8);
  EXPECT_EQ(m.config.grid_h, 4);
  EXPECT_EQ(m.config.grid_w, 4);
  auto before = backbone_weight(m).clone();
  train_one_step(m);
  EXPECT_TRUE(torch::equal(before, backbone_weight(m)));
}

TEST(Backbone, FineTunedBackboneLearnsAndTravelsInTheCheckpoint) {
  torch::manual_seed(2);
  test::TempDir dir("backbone-ft");
  auto config = test::tiny_model();
  config.backbone_path = test::write_tiny_backbone(dir / "bb.pt");
  config.backbone_trainable = true;
  auto m = CaptionModel::create(config, test::test_vocab(8), torch::kCPU);
  auto before = backbone_weight(m).clone();
  train_one_step(m);
  EXPECT_FALSE(torch::equal(before, backbone_weight(m)));
  save_checkpoint(dir / "m.ckpt", m);
  auto loaded = load_checkpoint(dir / "m.ckpt");
  EXPECT_TRUE(torch::equal(backbone_weight(loaded.model), backbone_weight(m)));
}

TEST(Backbone, UnloadableFileIsNamed) {
  test::TempDir dir("backbone-bad");
  std::ofstream(dir / "bb.pt") << "not torchscript";
  auto config = test::tiny_model();
  config.backbone_path = dir / "bb.pt";
  const auto msg = test::error_message([&] { CaptionModel::create(config, test::test_vocab(8), torch::kCPU); });
  EXPECT_NE(msg.find("bb.pt: not a loadable TorchScript module"), std::string::npos) << msg;
}

TEST(Backbone, ABackboneWithNonFiniteOrEmptyOutputIsNamedAtTheStart) {
  // Found at the first step, these were "the NLL is nan ... Try a lower --lr".
  test::TempDir dir("backbone-broken");
  const auto write = [&](const std::string& name, const std::string& body) {
    torch::jit::Module m("Broken");
    m.define("def forward(self, x):\n        return " + body + "\n");
    m.save(dir / name);
    return std::string(dir / name);
  };
  auto config = test::tiny_model();
  config.backbone_path = write("nan.pt", "torch.full([x.size(0), 8, 4, 4], float('nan'))");
  auto msg = test::error_message([&] { CaptionModel::create(config, test::test_vocab(8), torch::kCPU); });
  EXPECT_NE(msg.find("nan.pt: its output for a blank 32px image is not finite"), std::string::npos) << msg;
  config.backbone_path = write("empty.pt", "torch.zeros([x.size(0), 8, 0, 4])");
  msg = test::error_message([&] { CaptionModel::create(config, test::test_vocab(8), torch::kCPU); });
  EXPECT_NE(msg.find("empty.pt: returns an empty grid"), std::string::npos) << msg;
}
