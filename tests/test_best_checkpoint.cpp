// How a run chooses best.ckpt (core/train/run_validation.h): while BLEU-4 is near 0 by a score
// that moves (CIDEr-D, else the validation NLL), said in each validation line and kept in the
// model file, which fovea info reports.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/data/image_io.h"
#include "core/decode/captioner.h"
#include "core/train/run_log.h"
#include "core/train/trainer.h"
#include "tests/squares_corpus.h"
#include "tests/test_support.h"

namespace fovea {
namespace {

TEST(BestCheckpoint, WhileBleu4IsNearZeroBestCkptIsChosenByAScoreThatMovesAndSaysWhich) {
  if (!image_io_available()) GTEST_SKIP() << "built without OpenCV: no image files";
  test::TempDir dir("karpathy-young");
  auto config = test::tiny_training(dir / "run");
  config.dataset = "karpathy:" + make_corpus(dir, 12);  // 8 to train on, 4 alike to validate on
  config.images_dir = dir / "imgs";
  config.train_scenes = 0;
  config.val_scenes = 4;
  ::setenv("FOVEA_CACHE_DIR", (dir / "cache").c_str(), 1);
  config.batch_size = 4;
  config.max_steps = 8;  // a young model: four validations, BLEU-4 near 0
  const auto r = train(config);
  const auto log = read_run_log(config.out_dir);
  ASSERT_EQ(log.val.size(), 4u);
  std::int64_t last_improved = -1;
  for (const auto& v : log.val) {
    std::printf("step %lld: BLEU-4 %.3f CIDEr-D %.3f NLL %.4f metric %s%s\n", (long long)v.step, v.bleu[3], v.cider, v.nll,
                v.metric.c_str(), v.improved ? " improved" : "");
    EXPECT_GT(v.nll, 0);
    if (v.bleu[3] < 0.01) EXPECT_NE(v.metric, "BLEU-4") << "BLEU-4 " << v.bleu[3] << " ranks noise at step " << v.step;
    if (v.improved) {
      last_improved = v.step;
      if (v.metric != "BLEU-4") EXPECT_NE(improvement_note(v).find("by " + v.metric), std::string::npos) << improvement_note(v);
    }
  }
  EXPECT_GT(last_improved, log.val.front().step) << "the score chosen by moved after the first validation";
  EXPECT_EQ(r.best_step, last_improved);
  const auto info = Captioner(r.best_checkpoint).info();
  EXPECT_EQ(info.at("best_val").at("metric"), r.best_metric);
}

}  // namespace
}  // namespace fovea
