// Attention grounding: one-hot α on a cell inside the named object's box scores 1, outside 0.
#include <gtest/gtest.h>

#include "core/eval/grounding.h"
#include "core/eval/scene_evaluation.h"

using namespace fovea;

namespace {

Scene two_object_scene() {
  Scene s;
  s.image = RgbImage(112, 112);
  s.objects.push_back({8, 8, 40, 40, 7, "sneaker", "red"});      // cells rows/cols 1..4 of 14
  s.objects.push_back({72, 72, 104, 104, 8, "bag", "blue"});    // cells 9..12
  return s;
}

std::vector<float> one_hot(int row, int col) {
  std::vector<float> a(14 * 14, 0.0f);
  a[std::size_t(row * 14 + col)] = 1.0f;
  return a;
}

CaptionResult caption(std::vector<std::pair<std::string, std::vector<float>>> words) {
  CaptionResult r;
  r.grid_h = r.grid_w = 14;
  for (auto& [w, a] : words) r.words.push_back({w, a, 1.0f, -0.1f, -1});
  return r;
}

}  // namespace

TEST(Grounding, OneHotInsideTheBoxPointsOutsideDoesNot) {
  GroundingReport r;
  accumulate_grounding(two_object_scene(),
                       caption({{"a", one_hot(0, 0)}, {"red", one_hot(2, 2)}, {"sneaker", one_hot(3, 3)},
                                {"and", one_hot(0, 0)}, {"a", one_hot(0, 0)}, {"blue", one_hot(2, 2)}, {"bag", one_hot(2, 3)}}),
                       r);
  EXPECT_EQ(r.colour.count, 2);
  EXPECT_DOUBLE_EQ(r.colour.pointing(), 0.5);  // red on the sneaker, blue on the sneaker too
  EXPECT_EQ(r.noun.count, 2);
  EXPECT_DOUBLE_EQ(r.noun.pointing(), 0.5);
  EXPECT_DOUBLE_EQ(r.noun.precision(), 0.5);  // all mass in the box, or none
  EXPECT_EQ(r.phrase.count, 2);
  EXPECT_DOUBLE_EQ(r.per_class["sneaker"].pointing(), 1.0);
  EXPECT_DOUBLE_EQ(r.per_class["bag"].pointing(), 0.0);
  // The box [8, 40) touches cells 1..4 (centres 12..36, dilated by half a cell): 16 of 196 cells.
  EXPECT_NEAR(r.per_class["sneaker"].chance_level(), 16.0 / 196.0, 1e-9);
}

TEST(Grounding, NounsOfAbsentClassesAreCountedNotScored) {
  GroundingReport r;
  accumulate_grounding(two_object_scene(), caption({{"a", one_hot(0, 0)}, {"green", one_hot(2, 2)}, {"dress", one_hot(2, 2)}}), r);
  EXPECT_EQ(r.nouns, 1);
  EXPECT_EQ(r.absent_nouns, 1);
  EXPECT_EQ(r.noun.count, 0);
  EXPECT_EQ(r.colour.count, 0);  // no green object
  EXPECT_DOUBLE_EQ(r.absent_noun_rate(), 1.0);
}

TEST(Grounding, SampledGlimpsesCountWhenTheyLandInTheNamedBox) {
  auto c = caption({{"a", one_hot(0, 0)}, {"red", one_hot(2, 2)}, {"sneaker", one_hot(3, 3)},
                    {"and", one_hot(0, 0)}, {"a", one_hot(0, 0)}, {"blue", one_hot(10, 10)}, {"bag", one_hot(10, 10)}});
  c.words[1].glimpse = 2 * 14 + 2;    // red: in the sneaker's box
  c.words[2].glimpse = 12 * 14 + 12;  // sneaker: in the bag's box, not its own
  c.words[5].glimpse = 10 * 14 + 10;  // blue: in the bag's box
  c.words[6].glimpse = 0;             // bag: the corner, outside
  GroundingReport r;
  accumulate_grounding(two_object_scene(), c, r);
  EXPECT_EQ(r.glimpse.count, 4);
  EXPECT_DOUBLE_EQ(r.glimpse.pointing(), 0.5);
  GroundingReport expected_only;  // no sampled glimpses: nothing counted
  accumulate_grounding(two_object_scene(), caption({{"red", one_hot(2, 2)}, {"sneaker", one_hot(3, 3)}}), expected_only);
  EXPECT_EQ(expected_only.glimpse.count, 0);
}

TEST(Grounding, TopAsAPlaceIsNotAClassNounAndConfusionsNameTheObjectMeant) {
  GroundingReport r;
  // "top" after "the" is a place; "coat" is said of the red sneaker (the colour names it).
  accumulate_grounding(two_object_scene(),
                       caption({{"a", one_hot(0, 0)}, {"red", one_hot(2, 2)}, {"coat", one_hot(2, 2)}, {"in", one_hot(0, 0)},
                                {"the", one_hot(0, 0)}, {"top", one_hot(0, 0)}, {"left", one_hot(0, 0)}}),
                       r);
  EXPECT_EQ(r.nouns, 1);
  EXPECT_EQ(r.absent_nouns, 1);
  const auto ranked = ranked_confusions(r);
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].said, "coat");
  EXPECT_EQ(ranked[0].object, "sneaker");
  EXPECT_EQ(ranked[0].count, 1);
}

namespace {

/// Scenes 0 and 2 are two_object_scene() (with boxes); scene 1 has a reference but no objects,
/// as in a dataset without boxes.
class MixedScenes : public SceneSource {
 public:
  std::size_t size() const override { return 3; }
  Scene get(std::size_t index) const override {
    Scene s = two_object_scene();
    s.id = std::int64_t(index);
    s.captions = {"a red sneaker and a blue bag"};
    if (index == 1) s.objects.clear();
    return s;
  }
  std::string describe() const override { return "mixed"; }
};

}  // namespace

TEST(SceneEvaluation, ScoresTheCaptionsGivenAndGroundsOnlyScenesWithBoxes) {
  const MixedScenes scenes;
  std::size_t calls = 0;
  const auto right = caption({{"a", one_hot(0, 0)}, {"red", one_hot(2, 2)}, {"sneaker", one_hot(3, 3)}, {"and", one_hot(0, 0)},
                              {"a", one_hot(0, 0)}, {"blue", one_hot(10, 10)}, {"bag", one_hot(10, 10)}});
  const auto e = evaluate_scenes(
      [&](const std::vector<std::size_t>& indices, const std::vector<Scene>& batch) {
        ++calls;
        EXPECT_EQ(indices.size(), batch.size());
        return std::vector<CaptionResult>(batch.size(), right);
      },
      scenes, 2);
  EXPECT_EQ(calls, 2u);  // chunks of two
  EXPECT_EQ(e.scenes, 3u);
  EXPECT_NEAR(e.bleu[3], 1.0, 1e-6);  // every caption is its reference
  EXPECT_EQ(e.captions.at(1), "a red sneaker and a blue bag");
  // Scene 1 has no objects: its nouns name nothing absent, they are not counted at all.
  EXPECT_TRUE(e.has_boxes);
  EXPECT_EQ(e.grounding.nouns, 4);
  EXPECT_EQ(e.grounding.absent_nouns, 0);
  EXPECT_DOUBLE_EQ(e.grounding.phrase.pointing(), 1.0);
}
