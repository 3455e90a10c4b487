// TorchScript backbones: loaded from a file, frozen or fine-tuned, and saved in checkpoints, which
// hold the backbone itself (a model file copied alone captions the same; older files find theirs
// beside them, or are told how to embed it); a broken one (output not finite, or an empty grid)
// named when the model is made.
#include <gtest/gtest.h>
#include <torch/script.h>

#include <filesystem>
#include <fstream>

#include "core/decode/embed_backbone.h"
#include "core/model/checkpoint.h"
#include "core/train/objectives.h"
#include "tests/test_support.h"
#include "tests/tiny_backbone.h"

using namespace fovea;
namespace fs = std::filesystem;

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

TEST(Backbone, AModelFileCopiedAloneCaptionsTheSameWithoutTheBackboneFile) {
  torch::manual_seed(4);
  test::TempDir dir("backbone-alone");
  fs::create_directories(dir.path / "run");
  fs::create_directories(dir.path / "elsewhere");
  auto config = test::tiny_model();
  config.backbone_path = "bb.pt";  // relative, as `fovea train --backbone bb.pt` names it
  test::write_tiny_backbone((dir.path / "run" / "bb.pt"));
  const auto here = fs::current_path();
  fs::current_path(dir.path / "run");
  auto m = CaptionModel::create(config, test::test_vocab(8), torch::kCPU);
  save_checkpoint("m.ckpt", m);
  fs::current_path(here);
  fs::copy_file((dir.path / "run" / "m.ckpt"), (dir.path / "elsewhere" / "m.ckpt"));
  fs::remove((dir.path / "run" / "bb.pt"));  // the file it was trained with is gone
  auto loaded = load_checkpoint((dir.path / "elsewhere" / "m.ckpt"));
  EXPECT_TRUE(loaded.backbone_embedded);
  const auto images = torch::rand({2, 3, 32, 32});
  torch::NoGradGuard no_grad;
  m.net->eval();
  EXPECT_TRUE(torch::equal(m.net->encode(images), loaded.model.net->encode(images)));
  const auto b = describe_embedded_backbone(loaded.model.config);
  EXPECT_EQ(b.at("file"), "bb.pt");
  EXPECT_EQ(b.at("grid"), nlohmann::json({4, 4, 8}));
  EXPECT_EQ(b.at("digest").get<std::string>().rfind("crc32=", 0), 0u) << b.dump();
}

TEST(Backbone, AnOlderFileNamingItsBackboneFindsItBesideItselfOrSaysWhereItLookedAndHowToEmbedIt) {
  torch::manual_seed(5);
  test::TempDir dir("backbone-old");
  fs::create_directories(dir.path / "run");
  auto config = test::tiny_model();
  config.backbone_path = "bb.pt";
  test::write_tiny_backbone((dir.path / "run" / "bb.pt"));
  const auto here = fs::current_path();
  fs::current_path(dir.path / "run");
  auto m = CaptionModel::create(config, test::test_vocab(8), torch::kCPU);
  m.config.backbone_bytes = nullptr;  // as files were written before they held their backbone
  save_checkpoint("old.ckpt", m);
  fs::current_path(here);
  auto found = load_checkpoint((dir.path / "run" / "old.ckpt"));  // beside the file, whatever the current folder
  EXPECT_FALSE(found.backbone_embedded);
  fs::rename((dir.path / "run" / "bb.pt"), dir / "bb-moved.pt");
  const auto msg = test::error_message([&] { load_checkpoint((dir.path / "run" / "old.ckpt")); });
  EXPECT_NE(msg.find("its TorchScript backbone bb.pt is not in the file and was not found (tried " +
                     ((dir.path / "run" / "bb.pt")).string()),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("fovea embed-backbone"), std::string::npos) << msg;
  // Embedded once, it opens with no backbone file anywhere.
  test::write_tiny_backbone(dir / "other.pt");  // another backbone's weights are refused
  EXPECT_NE(test::error_message([&] { embed_backbone((dir.path / "run" / "old.ckpt"), dir / "other.pt"); })
                .find("its weights are not those this model was trained with"),
            std::string::npos);
  const auto old_size = fs::file_size(dir.path / "run" / "old.ckpt");
  embed_backbone((dir.path / "run" / "old.ckpt"), dir / "bb-moved.pt");
  // The backbone's weights are stored once, inside its bytes, not beside them as well.
  const auto weights = std::uintmax_t(8 * 3 * 8 * 8 * 4);
  EXPECT_LT(fs::file_size(dir.path / "run" / "old.ckpt"), old_size + fs::file_size(dir / "bb-moved.pt") - weights / 2);
  fs::remove(dir / "bb-moved.pt");
  auto embedded = load_checkpoint((dir.path / "run" / "old.ckpt"));
  EXPECT_TRUE(embedded.backbone_embedded);
  const auto images = torch::rand({1, 3, 32, 32});
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::equal(found.model.net->encode(images), embedded.model.net->encode(images)));
}
