// BLEU as coco-caption computes it, checked against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "core/data/tokenizer.h"
#include "core/eval/bleu.h"

using namespace fovea;

TEST(Bleu, ClippedCountsPerOrder) {
  // cand "a red red bag" (4 words), refs of 3 and 6 words -> closest length 3, no brevity penalty.
  // 1-grams: a 1, red min(2, 1) = 1, bag 1 -> 3/4.  2-grams: "a red" 1, "red red" 0, "red bag" 1 -> 2/3.
  // 3-grams: 0/2, 4-grams 0/1 -> the toolkit's epsilons: (0 + 1e-15) / (n + 1e-9).
  auto b = corpus_bleu({tokenize("a red red bag")}, {{tokenize("a red bag"), tokenize("the red bag on the floor")}});
  EXPECT_NEAR(b[0], 0.75, 1e-9);
  EXPECT_NEAR(b[1], std::sqrt(0.75 * 2.0 / 3.0), 1e-9);
  EXPECT_NEAR(b[2], std::cbrt(0.75 * 2.0 / 3.0 * (1e-15 / (2 + 1e-9))), 1e-12);
  EXPECT_NEAR(b[3], std::pow(0.75 * 2.0 / 3.0 * (1e-15 / (2 + 1e-9)) * (1e-15 / (1 + 1e-9)), 0.25), 1e-12);
}

TEST(Bleu, BrevityPenaltyOnCorpusTotals) {
  // Lengths 3 + 3 = 6 against closest references 6 + 3 = 9: BP = exp(1 - 9/6) = exp(-0.5).
  // Every 1-, 2-, 3-gram matches (6/6, 4/4, 2/2); there are no 4-grams (0/0 -> 1e-15/1e-9).
  auto b = corpus_bleu({tokenize("a red bag"), tokenize("a blue boot")},
                       {{tokenize("a red bag on the left")}, {tokenize("a blue boot")}});
  const double bp = std::exp(1 - (9 + 1e-9) / (6 + 1e-15));
  EXPECT_NEAR(b[0], bp, 1e-9);
  EXPECT_NEAR(b[1], bp, 1e-9);
  EXPECT_NEAR(b[2], bp, 1e-9);
  EXPECT_NEAR(b[3], bp * std::pow(1e-15 / 1e-9, 0.25), 1e-9);
}

TEST(Bleu, ClosestReferenceLengthTiesGoToTheShorter) {
  // 4 words between references of 3 and 5: the tie goes to 3, so no brevity penalty.
  auto b = corpus_bleu({tokenize("a b c d")}, {{tokenize("a b c"), tokenize("a b c d e")}});
  EXPECT_NEAR(b[0], 1.0, 1e-9);
}

TEST(Bleu, EmptyCandidateAndMismatchedInput) {
  auto b = corpus_bleu({Tokens{}}, {{tokenize("a red bag")}});
  EXPECT_LT(b[0], 1e-5);
  EXPECT_THROW(corpus_bleu({tokenize("a")}, {}), std::invalid_argument);
}
