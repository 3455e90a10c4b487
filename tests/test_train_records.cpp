// metrics.jsonl's lines read back as they were written: every field of a training step (hard and
// self-critical ones included), a validation (grounding and faithfulness included) and a
// pretraining window; a line of an older run, without the optional groups, reads as without them.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/train/train_records.h"

using namespace fovea;

TEST(TrainRecords, ATrainingStepReadsBackAsWritten) {
  TrainRecord r;
  r.step = 12, r.epoch = 3, r.loss = 1.5, r.nll = 1.25, r.penalty = 0.125, r.lr = 0.01, r.grad_norm = 2.5;
  r.tokens_per_s = 900, r.entropy = 0.75, r.aux_loss = 0.5, r.attention_loss = 0.25, r.elapsed_s = 42;
  r.hard = true, r.baseline = 0.3, r.reward = 0.4, r.reward_var = 0.05;
  r.self_critical = true, r.sample_reward = 0.6, r.baseline_reward = 0.55, r.advantage = 0.05;
  r.sample_length = 7.5, r.end_rate = 0.9, r.advantage_rms = 0.125;
  const auto j = to_json(r);
  EXPECT_EQ(j["kind"], "train");
  const auto back = train_record_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_TRUE(back.hard && back.self_critical);
  EXPECT_EQ(back.end_rate, 0.9);
  EXPECT_EQ(back.advantage_rms, 0.125);
  // A self-critical step logged before the advantage's RMS was: not a zero, which would plot as one.
  auto older = j;
  older.erase("advantage_rms");
  EXPECT_TRUE(std::isnan(train_record_from_json(older).advantage_rms));

  TrainRecord plain;
  plain.step = 1, plain.loss = 2;
  const auto p = to_json(plain);
  EXPECT_FALSE(p.contains("baseline") || p.contains("sample_reward")) << p.dump();
  const auto plain_back = train_record_from_json(p);
  EXPECT_FALSE(plain_back.hard || plain_back.self_critical);
  EXPECT_EQ(plain_back.loss, 2);
}

TEST(TrainRecords, AValidationReadsBackAsWrittenAndAnOlderOneWithoutCiderAsNaN) {
  ValidationRecord v;
  v.step = 20, v.epoch = 4, v.bleu[0] = 0.9, v.bleu[1] = 0.8, v.bleu[2] = 0.7, v.bleu[3] = 0.6, v.cider = 1.1;
  v.has_grounding = true, v.pointing = 0.95, v.alpha_in_box = 0.7, v.absent_nouns = 0.01, v.nll = 0.5;
  v.has_faithfulness = true, v.faithful_rate = 0.8, v.attended_drop = 0.6, v.control_drop = 0.1;
  v.metric = "CIDEr-D", v.improved = true, v.best_bleu4 = 0.6;
  const auto j = to_json(v);
  const auto back = validation_record_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_TRUE(back.has_grounding && back.has_faithfulness && back.improved);
  EXPECT_EQ(back.metric, "CIDEr-D");

  const auto older = validation_record_from_json(nlohmann::json{{"kind", "val"}, {"step", 2}, {"bleu4", 0.5}});
  EXPECT_TRUE(std::isnan(older.cider));
  EXPECT_FALSE(older.has_grounding || older.has_faithfulness);
  EXPECT_EQ(older.bleu[3], 0.5);
  EXPECT_EQ(older.metric, "BLEU-4");
}

TEST(TrainRecords, APretrainingWindowReadsBackAsWrittenItsHeldOutShareOnlyWhenScored) {
  PretrainRecord p;
  p.pretrain_step = 50, p.pretrain_steps = 200, p.loss = 0.8, p.item_accuracy = 0.7, p.lr = 0.002, p.elapsed_s = 9;
  const auto j = to_json(p);
  EXPECT_FALSE(j.contains("held_out_accuracy"));
  EXPECT_EQ(to_json(pretrain_record_from_json(j)), j);
  EXPECT_EQ(pretrain_record_from_json(j).held_out_accuracy, -1);
  p.held_out_accuracy = 0.75;
  EXPECT_EQ(pretrain_record_from_json(to_json(p)).held_out_accuracy, 0.75);
}
