// ROUGE-L and CIDEr-D against hand-computed values; COCO caption files and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/data/coco_captions.h"
#include "core/eval/caption_scores.h"
#include "core/data/tokenizer.h"
#include "core/eval/caption_metrics.h"
#include "core/eval/reference_captions.h"
#include "tests/test_support.h"

using namespace fovea;

TEST(RougeL, PrecisionAndRecallMaximisedSeparately) {
  // vs "a bag": LCS 2 -> P 2/6, R 2/2. vs "the red bag on a floor": LCS "red bag on floor" = 4 -> P 4/6, R 4/6.
  // P = 4/6 and R = 1 come from different references: F = (1 + 1.2^2) P R / (R + 1.2^2 P).
  auto s = rouge_l({tokenize("a red bag on the floor")}, {{tokenize("a bag"), tokenize("the red bag on a floor")}});
  const double p = 4.0 / 6.0, r = 1.0, b2 = 1.44;
  EXPECT_NEAR(s[0], (1 + b2) * p * r / (r + b2 * p), 1e-12);
  EXPECT_DOUBLE_EQ(rouge_l({Tokens{}}, {{tokenize("a bag")}})[0], 0.0);
  EXPECT_DOUBLE_EQ(rouge_l({tokenize("a bag")}, {{tokenize("a bag")}})[0], 1.0);
}

TEST(CiderD, IdenticalCaptionsWithOnlyUniAndBigrams) {
  // Two images, every n-gram in one image's references only: weight tf * (ln 2 - ln 1).
  // Identical candidate and reference: cosine 1 for n = 1, 2; no 3-, 4-grams: 0. (1+1+0+0)/4 * 10 = 5.
  auto s = cider_d({tokenize("a b"), tokenize("e f")}, {{tokenize("a b")}, {tokenize("e f")}});
  EXPECT_NEAR(s[0], 5.0, 1e-12);
  EXPECT_NEAR(s[1], 5.0, 1e-12);
}

TEST(CiderD, ClippedCosinesAndLengthPenalty) {
  // Image 1: "a b" against "a b c". Unigrams: dot 2 w^2, norms sqrt(2) w, sqrt(3) w -> 2/sqrt(6).
  // Bigrams: "a b" against {"a b", "b c"} -> 1/sqrt(2). Trigrams: none in the candidate -> 0.
  // Length (the toolkit counts bigrams): 1 vs 2 -> exp(-1 / (2 * 36)).
  auto s = cider_d({tokenize("a b"), tokenize("e f")}, {{tokenize("a b c")}, {tokenize("e f")}});
  const double expected = (2 / std::sqrt(6.0) + 1 / std::sqrt(2.0)) / 4 * std::exp(-1.0 / 72.0) * 10;
  EXPECT_NEAR(s[0], expected, 1e-12);
  // Repeating a word cannot buy score: min(candidate weight, reference weight) clips it.
  auto rep = cider_d({tokenize("a a a b"), tokenize("e f")}, {{tokenize("a b c")}, {tokenize("e f")}});
  EXPECT_LT(rep[0], s[0]);
  // One reference set only: ln(1) = 0 makes every weight 0.
  EXPECT_DOUBLE_EQ(cider_d({tokenize("a b")}, {{tokenize("a b")}})[0], 0.0);
}

TEST(CocoCaptions, ScoresWithTheToolkitKeyNames) {
  test::TempDir dir("coco");
  std::ofstream(dir / "refs.json") << R"({"images":[{"id":1},{"id":2}],"annotations":[
    {"image_id":1,"id":10,"caption":"A red bag."},{"image_id":1,"id":11,"caption":"a red bag on the left"},
    {"image_id":2,"id":12,"caption":"a blue boot"}]})";
  std::ofstream(dir / "res.json") << R"([{"image_id":1,"caption":"a red bag"},{"image_id":2,"caption":"a blue boot"}])";
  auto s = score_captions(read_coco_references(dir / "refs.json"), read_coco_results(dir / "res.json"));
  auto j = to_json(s);
  for (const char* k : {"Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"}) EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_NEAR(s.bleu[0], 1.0, 1e-6);  // every word matches and lengths equal their closest references
  EXPECT_NEAR(s.rouge_l, 1.0, 1e-12);
  ASSERT_EQ(s.per_image.size(), 2u);
  EXPECT_EQ(s.per_image[1].image_id, 2);
}

TEST(CocoCaptions, MissingImagesAreListedAndBadJsonIsLocated) {
  test::TempDir dir("coco-bad");
  std::ofstream(dir / "refs.json") << R"({"images":[{"id":1},{"id":2},{"id":3}],"annotations":[
    {"image_id":1,"caption":"a"},{"image_id":2,"caption":"b"},{"image_id":3,"caption":"c"}]})";
  std::ofstream(dir / "res.json") << R"([{"image_id":1,"caption":"a"},{"image_id":7,"caption":"x"}])";
  const auto m = test::error_message(
      [&] { score_captions(read_coco_references(dir / "refs.json"), read_coco_results(dir / "res.json")); });
  EXPECT_NE(m.find("without references: 7"), std::string::npos) << m;
  EXPECT_NE(m.find("without a result: 2, 3"), std::string::npos) << m;
  std::ofstream(dir / "broken.json") << R"([{"image_id":1,"caption":"a"},)";
  const auto broken = test::error_message([&] { read_coco_results(dir / "broken.json"); });
  EXPECT_NE(broken.find("broken.json: not valid JSON at byte"), std::string::npos) << broken;
  std::ofstream(dir / "dup.json") << R"([{"image_id":1,"caption":"a"},{"image_id":1,"caption":"b"}])";
  EXPECT_THROW(read_coco_results(dir / "dup.json"), std::runtime_error);
}

TEST(ReferenceCaptions, AFolderCaptionsJsonScoresACaptionAgainstItsImagesReferences) {
  test::TempDir dir("references");
  EXPECT_TRUE(ReferenceCaptions::read_folder(dir.path.string()).empty());  // no captions.json: none
  std::ofstream(dir / "captions.json") << R"([
    {"file": "a.png", "captions": ["a red bag to the left of a blue shirt", "a red bag and a blue shirt"], "id": 0},
    {"file": "b.png", "captions": ["a green sneaker", "one green sneaker"]},
    {"file": "c.png", "captions": ["a white coat above a black dress", "a white coat and a black dress"]}])";
  const auto refs = ReferenceCaptions::read_folder(dir.path.string());
  ASSERT_EQ(refs.of("a.png").size(), 2u);
  EXPECT_TRUE(refs.of("missing.png").empty());
  const auto exact = refs.score("a.png", "a red bag to the left of a blue shirt");
  const auto close = refs.score("a.png", "a red bag to the right of a blue shirt");
  const auto wrong = refs.score("a.png", "a white coat above a black dress");
  EXPECT_NEAR(exact.bleu4, 1.0, 1e-6);
  EXPECT_GT(exact.cider, close.cider);
  EXPECT_GT(close.cider, wrong.cider);
  EXPECT_GT(close.bleu4, wrong.bleu4);
  EXPECT_THROW(refs.score("missing.png", "a bag"), std::invalid_argument);
  std::ofstream(dir / "captions.json") << R"({"file": "a.png"})";
  const auto error = test::error_message([&] { ReferenceCaptions::read_folder(dir.path.string()); });
  EXPECT_NE(error.find("captions.json"), std::string::npos) << error;
}
