// The training settings table: one description per setting, from which the JSON, the validation
// and (in app/ and ui/) the CLI options and the New run dialog's fields are made.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/train/train_settings.h"
#include "test_support.h"

namespace fovea {
namespace {

TEST(TrainSettings, TheConfigJsonCarriesExactlyTheTablesKeys) {
  std::set<std::string> table, json;
  for (const auto& s : train_settings()) {
    EXPECT_TRUE(table.insert(s.key).second) << "described twice: " << s.key;
    EXPECT_NE(std::find(train_setting_groups().begin(), train_setting_groups().end(), s.group), train_setting_groups().end())
        << s.key << " is in no known group";
    EXPECT_FALSE(std::string(s.help).empty()) << s.key;
  }
  const auto j = to_json(recommended_train_config());
  for (auto it = j.begin(); it != j.end(); ++it) json.insert(it.key());
  json.erase("version");
  EXPECT_EQ(table, json);
  EXPECT_EQ(j.at("version"), kTrainConfigVersion);
  EXPECT_LE(table.size(), 38u) << "fovea train --help: these, --resume, --paper, --processes and --help, at most 42";
}

TEST(TrainSettings, EverySettingSurvivesTheJsonRoundTrip) {
  TrainConfig c = test::tiny_training("runs/x", AttentionKind::Hard);
  c.model.use_beta = false;
  c.model.init_state = InitState::Zero;
  c.objective.reduction = PenaltyReduction::Sum;
  c.objective.lambda_e = 0.25;
  c.init_from = "a.ckpt";
  c.self_critical = "samples";
  c.seed = 7;
  const auto back = train_config_from_json(to_json(c));
  for (const auto& s : train_settings()) EXPECT_EQ(s.get(back), s.get(c)) << s.key;
  EXPECT_EQ(back.scenes.image_size, 32) << "the scenes are drawn at the model's input size";
}

TEST(TrainSettings, TheArgumentsOfAConfigGiveItBackOptionByOption) {
  TrainConfig c = test::tiny_training("runs/x", AttentionKind::Hard);
  c.model.use_beta = false;
  c.objective.lambda_e = 0.1234567891234;  // more digits than a float's default formatting keeps
  c.lr = 3e-4;
  c.seed = 7;
  const auto args = train_arguments(c);
  TrainConfig back = recommended_train_config();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& s = [&]() -> const TrainSetting& {
      const auto name = args[i].substr(args[i].rfind("--no-", 0) == 0 ? 5 : 2);
      for (const auto& t : train_settings()) {
        if (t.cli_name() == "--" + name) return t;
      }
      throw std::runtime_error("no setting for " + args[i]);
    }();
    if (std::holds_alternative<bool>(s.get(back))) s.set(back, args[i].rfind("--no-", 0) != 0);
    else s.set(back, parse_setting(s, args.at(++i)));
  }
  for (const auto& s : train_settings()) EXPECT_EQ(s.get(back), s.get(c)) << s.key;
  EXPECT_NE(std::find(args.begin(), args.end(), "--no-beta"), args.end());
  EXPECT_EQ(std::find(args.begin(), args.end(), "--init-from"), args.end()) << "an empty setting is left out";
}

TEST(TrainSettings, ValidationNamesTheSettingAndItsRange) {
  auto c = test::tiny_training("runs/x");
  c.lr = 0;
  EXPECT_NE(test::error_message([&] { c.validate(); }).find("lr must be > 0"), std::string::npos);
  c = test::tiny_training("runs/x");
  c.self_critical = "sometimes";
  EXPECT_NE(test::error_message([&] { c.validate(); }).find("self_critical must be one of off, greedy, samples"),
            std::string::npos);
  c = test::tiny_training("runs/x");
  c.self_critical = "greedy";  // from scratch: nothing to sample from
  EXPECT_NE(test::error_message([&] { c.validate(); }).find("needs a model to start from (init_from"), std::string::npos);
  c = test::tiny_training("runs/x");
  c.precision = "fp8";
  EXPECT_NE(test::error_message([&] { c.validate(); }).find("precision must be one of auto, fp32, bf16"), std::string::npos);
  c = test::tiny_training("");
  EXPECT_NE(test::error_message([&] { c.validate(); }).find("output folder"), std::string::npos);
}

TEST(TrainSettings, TextIsParsedAsTheSettingsTypeOrRejectedByName) {
  EXPECT_EQ(std::get<std::int64_t>(parse_setting(train_setting("epochs"), "12")), 12);
  EXPECT_DOUBLE_EQ(std::get<double>(parse_setting(train_setting("lr"), "4e-4")), 4e-4);
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(parse_setting(train_setting("encoder_widths"), "8,16,32")),
            (std::vector<std::int64_t>{8, 16, 32}));
  EXPECT_FALSE(std::get<bool>(parse_setting(train_setting("beta"), "off")));
  EXPECT_NE(test::error_message([] { parse_setting(train_setting("epochs"), "12x"); }).find("--epochs"), std::string::npos);
  EXPECT_NE(test::error_message([] { parse_setting(train_setting("attention"), "medium"); }).find("soft, hard"),
            std::string::npos);
  EXPECT_THROW(train_setting("weight_averaging"), std::invalid_argument);
  EXPECT_EQ(train_setting("init_from").cli_name(), "--init-from");
}

TEST(TrainSettings, ARunSavedBeforeTheTableIsReadThroughOneMigration) {
  // A version-1 config as runs wrote it: nested model and scene settings, other key names, and
  // settings since removed.
  const auto v1 = nlohmann::json::parse(R"({
    "model": {"attention": "hard", "image_size": 48, "encoder_widths": [8, 16, 32], "backbone_path": "",
              "backbone_trainable": false, "embed_dim": 16, "attention_dim": 16, "hidden_dim": 48,
              "dropout": 0.25, "use_beta": false, "init_state": "learned"},
    "dataset": "fashion-scenes", "images_dir": "", "train_scenes": 640, "val_scenes": 32, "fresh_scenes": true,
    "scenes": {"seed": 1, "mirror_items": true}, "min_count": 2, "lr": 0.002, "lr_decay": 0.5, "lr_schedule": "cosine",
    "weight_averaging": 0.999, "batch_size": 16, "epochs": 3, "max_steps": 0, "grad_clip": 5, "lambda": 1,
    "penalty_reduction": "sum", "lambda_r": 1, "lambda_e": 0.01, "aux_weight": 3, "object_class_weight": 3,
    "attention_supervision": 1, "pretrain_steps": 100, "expected_context_prob": 0.25, "baseline_decay": 0.8,
    "seed": 4, "device": "cpu", "precision": "fp32", "threads": 1, "log_every": 10, "checkpoint_every": 50,
    "patience": 3, "out_dir": "runs/old", "init_from": ""})");
  const auto c = train_config_from_json(v1);
  EXPECT_EQ(c.model.attention, AttentionKind::Hard);
  EXPECT_EQ(c.model.image_size, 48);
  EXPECT_FALSE(c.model.use_beta);
  EXPECT_EQ(c.batch_size, 16);
  EXPECT_EQ(c.self_critical, "off") << "a run from before self-critical training trained with cross-entropy";
  EXPECT_EQ(c.objective.reduction, PenaltyReduction::Sum);
  EXPECT_EQ(c.min_count, 2);
  EXPECT_EQ(c.out_dir, "runs/old");
  EXPECT_EQ(c.seed, 4u);
  EXPECT_EQ(to_json(c).at("version"), kTrainConfigVersion);
  auto newer = to_json(c);
  newer["version"] = kTrainConfigVersion + 1;
  EXPECT_NE(test::error_message([&] { train_config_from_json(newer); }).find("newer"), std::string::npos);
}

TEST(TrainSettings, AVersionTwoRunTrainsEveryBlockOfItsCnnAsItDid) {
  TrainConfig c;
  c.pretrain_steps = 100;  // a CNN that is trained before captioning
  c.model.encoder_widths = {8, 16, 32, 32, 32};
  c.model.fit_strides_to_widths(false);
  auto v2 = to_json(c);
  v2["version"] = 2;
  v2.erase("trainable_blocks");
  const auto read = train_config_from_json(v2);
  EXPECT_EQ(read.trainable_blocks, 5);
  EXPECT_EQ(frozen_encoder_blocks(read), 0);
  EXPECT_EQ(frozen_encoder_blocks(c), 5 - c.trainable_blocks);
}

TEST(TrainSettings, OnlyACnnThatStartsTrainedKeepsBlocksFrozen) {
  TrainConfig c;  // the built-in CNN, untrained: every block trains whatever trainable_blocks says
  c.trainable_blocks = 1;
  EXPECT_EQ(frozen_encoder_blocks(c), 0);
  c.pretrain_steps = 100;  // pretrained in the run: then all but the top block keep their weights
  EXPECT_EQ(frozen_encoder_blocks(c), std::int64_t(c.model.encoder_widths.size()) - 1);
  c.pretrain_steps = 0;
  c.init_from = "soft.ckpt";  // another model's trained encoder
  EXPECT_EQ(frozen_encoder_blocks(c), std::int64_t(c.model.encoder_widths.size()) - 1);
  c.trainable_blocks = 64;  // more than it has: all
  EXPECT_EQ(frozen_encoder_blocks(c), 0);
  c.trainable_blocks = 0;
  EXPECT_EQ(frozen_encoder_blocks(c), std::int64_t(c.model.encoder_widths.size()));
}

TEST(TrainSettings, ThePapersObjectiveTurnsOffEveryAdditionAndKeepsTheRest) {
  auto c = recommended_train_config();
  c.epochs = 9;
  c.pretrain_steps = 100;
  apply_paper_objective(c);
  EXPECT_EQ(c.backbone, recommended_train_config().backbone) << "the paper, too, starts from a pretrained CNN";
  EXPECT_EQ(c.aux_weight, 0);
  EXPECT_EQ(c.attention_supervision, 0);
  EXPECT_EQ(c.pretrain_steps, 0);
  EXPECT_EQ(c.model.init_state, InitState::Mean);
  EXPECT_EQ(c.objective.reduction, PenaltyReduction::Sum);
  EXPECT_EQ(c.epochs, 9);
}

TEST(TrainSettings, TheSelfCriticalRecipeKeepsTheModelAndItsDataAndNeedsAModelToStartFrom) {
  auto c = recommended_train_config();
  c.out_dir = "runs/sc";
  c.model.hidden_dim = 96;
  c.attention_supervision = 2;
  c.train_scenes = 6400;
  apply_self_critical_recipe(c);
  EXPECT_EQ(c.self_critical, "samples");
  EXPECT_EQ(c.model.hidden_dim, 96);
  EXPECT_EQ(c.train_scenes, 6400u);
  EXPECT_EQ(c.attention_supervision, 2) << "attention supervision stays where it was on";
  EXPECT_EQ(frozen_encoder_blocks(c), std::int64_t(c.model.encoder_widths.size())) << "the encoder as it is";
  EXPECT_NE(test::error_message([&] { c.validate(); }).find("needs a model to start from"), std::string::npos);
  c.init_from = "models/fashion-soft.ckpt";
  EXPECT_NO_THROW(c.validate());
}

}  // namespace
}  // namespace fovea
