// The built-in fashion-scenes dataset: deterministic, five references, boxes that match.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/fashion_scenes.h"
#include "core/tokenizer.h"
#include "tests/test_support.h"

using namespace fovea;

TEST(FashionScenes, SameSeedSameScene_OtherSeedOtherScene) {
  FOVEA_REQUIRE_FASHION_MNIST();
  FashionScenes a("train", 50), b("train", 50);
  FashionScenesOptions other;
  other.seed = 2;
  FashionScenes c("train", 50, other);
  for (std::size_t i : {0u, 7u, 49u}) {
    EXPECT_EQ(a.get(i).image.pixels, b.get(i).image.pixels);
    EXPECT_EQ(a.get(i).captions, b.get(i).captions);
  }
  EXPECT_NE(a.get(3).image.pixels, c.get(3).image.pixels);
  EXPECT_THROW(a.get(50), std::out_of_range);
}

TEST(FashionScenes, MirroringFlipsTrainingItemsInPlaceAndLeavesValidationAndTestAlone) {
  FOVEA_REQUIRE_FASHION_MNIST();
  FashionScenesOptions mirror;
  mirror.mirror_items = true;
  FashionScenes plain("train", 40), mirrored("train", 40, mirror);
  EXPECT_TRUE(mirrored.mirrors_items());
  EXPECT_NE(mirrored.describe().find("mirrored"), std::string::npos);
  auto total = [](const Scene& s) { return std::accumulate(s.image.pixels.begin(), s.image.pixels.end(), 0LL); };
  int changed = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const auto a = plain.get(i), b = mirrored.get(i);
    ASSERT_EQ(a.objects.size(), b.objects.size());
    for (std::size_t k = 0; k < a.objects.size(); ++k) {
      // The same item, tint and place: only its left and right swap, so its box keeps its size.
      EXPECT_EQ(a.objects[k].class_id, b.objects[k].class_id);
      EXPECT_EQ(a.objects[k].colour, b.objects[k].colour);
      EXPECT_EQ(a.objects[k].x1 - a.objects[k].x0, b.objects[k].x1 - b.objects[k].x0);
      EXPECT_EQ(a.objects[k].y0, b.objects[k].y0);
      EXPECT_EQ(a.objects[k].y1, b.objects[k].y1);
    }
    EXPECT_EQ(total(a), total(b)) << "scene " << i;  // the same pixels, rearranged
    changed += a.image.pixels != b.image.pixels;
  }
  // Each item flips with probability 1/2: most scenes change, and some (a lone unflipped item) do not.
  EXPECT_GT(changed, 20);
  EXPECT_LT(changed, 40);
  for (const char* split : {"val", "test"}) {
    FashionScenes held_out(split, 20), held_out_mirror(split, 20, mirror);
    EXPECT_FALSE(held_out_mirror.mirrors_items());
    for (std::size_t i = 0; i < held_out.size(); ++i) EXPECT_EQ(held_out.get(i).image.pixels, held_out_mirror.get(i).image.pixels);
  }
}

TEST(FashionScenes, ErasingDarkensPartOfTrainingItemsAndLeavesEverythingElseAlone) {
  FOVEA_REQUIRE_FASHION_MNIST();
  FashionScenesOptions erase;
  erase.erase_items = 1.0;
  FashionScenes plain("train", 30), erased("train", 30, erase);
  EXPECT_GT(erased.erases_items(), 0.0);
  EXPECT_NE(erased.describe().find("erased"), std::string::npos);
  int darker = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const auto a = plain.get(i), b = erased.get(i);
    ASSERT_EQ(a.objects.size(), b.objects.size());
    for (std::size_t k = 0; k < a.objects.size(); ++k) {  // the same items and tints (their boxes may shrink)
      EXPECT_EQ(a.objects[k].class_id, b.objects[k].class_id);
      EXPECT_EQ(a.objects[k].colour, b.objects[k].colour);
    }
    // Erasing only takes light away.
    std::int64_t removed = 0;
    for (std::size_t p = 0; p < a.image.pixels.size(); ++p) {
      ASSERT_LE(b.image.pixels[p], a.image.pixels[p]) << "scene " << i << ", byte " << p;
      removed += a.image.pixels[p] - b.image.pixels[p];
    }
    darker += removed > 0;
    for (std::size_t k = 0; k < a.objects.size(); ++k) {
      const auto& o = b.objects[k];
      EXPECT_GE(o.x0, a.objects[k].x0);  // a box can only shrink, to the part left visible
      EXPECT_LE(o.x1, a.objects[k].x1);
      EXPECT_GE(o.y0, a.objects[k].y0);
      EXPECT_LE(o.y1, a.objects[k].y1);
    }
  }
  // Every item loses a rectangle (probability 1); only one that falls on an item's dark part
  // leaves its scene as it was.
  EXPECT_GE(darker, 25);
  for (const char* split : {"val", "test"}) {
    FashionScenes held_out(split, 10), held_out_erase(split, 10, erase);
    EXPECT_EQ(held_out_erase.erases_items(), 0.0);
    for (std::size_t i = 0; i < held_out.size(); ++i) EXPECT_EQ(held_out.get(i).image.pixels, held_out_erase.get(i).image.pixels);
  }
}

TEST(FashionScenes, FiveReferencesThatNameEveryObjectInsideItsBox) {
  FOVEA_REQUIRE_FASHION_MNIST();
  FashionScenes scenes("test", 200);
  std::size_t with_relation = 0;
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    const auto s = scenes.get(i);
    ASSERT_EQ(s.captions.size(), 5u);
    ASSERT_GE(s.objects.size(), 1u);
    ASSERT_LE(s.objects.size(), 4u);
    for (const auto& o : s.objects) {
      EXPECT_LT(o.x0, o.x1);
      EXPECT_LT(o.y0, o.y1);
      EXPECT_GE(o.x0, 0);
      EXPECT_LE(o.x1, 112);
      // The box holds the tinted item: its brightest pixel is far above the background.
      int brightest = 0;
      for (int y = o.y0; y < o.y1; ++y)
        for (int x = o.x0; x < o.x1; ++x) brightest = std::max<int>(brightest, *std::max_element(s.image.at(x, y), s.image.at(x, y) + 3));
      EXPECT_GT(brightest, 100);
      for (const auto& c : s.captions) {
        EXPECT_NE(c.find(o.colour + " " + o.noun), std::string::npos) << c;
      }
    }
    for (const auto& c : s.captions) {
      if (c.find("left of") != std::string::npos || c.find("above") != std::string::npos) ++with_relation;
    }
  }
  EXPECT_GT(with_relation, 50u);
}

TEST(FashionScenes, TwoObjectRelationsFollowTheBoxes) {
  SceneObject left{0, 40, 20, 60, 7, "sneaker", "red"}, right{80, 40, 100, 60, 8, "bag", "blue"};
  auto caps = describe_objects({right, left}, 112);
  EXPECT_EQ(caps[0], "a red sneaker and a blue bag");
  EXPECT_EQ(caps[1], "a red sneaker to the left of a blue bag");
  EXPECT_EQ(caps[2], "a blue bag to the right of a red sneaker");
  SceneObject top{40, 0, 60, 20, 3, "dress", "pink"}, bottom{44, 80, 64, 100, 9, "boot", "white"};
  caps = describe_objects({bottom, top}, 112);
  EXPECT_EQ(caps[1], "a pink dress above a white boot");
}

TEST(FashionScenes, ValidationAndTestDrawFromDisjointItems) {
  auto items = std::make_shared<FashionMnist>();
  items->pixels.assign(4 * 784, 0);
  for (int i = 0; i < 4; ++i) {
    items->labels.push_back(std::uint8_t(i));
    std::fill(items->pixels.begin() + i * 784, items->pixels.begin() + (i + 1) * 784, std::uint8_t(200));
  }
  FashionScenesOptions o;
  o.max_objects = 1;
  FashionScenes val("val", 40, items, o), test("test", 40, items, o);
  for (std::size_t i = 0; i < 40; ++i) {
    EXPECT_LT(val.get(i).objects[0].class_id, 2);   // items 0, 1
    EXPECT_GE(test.get(i).objects[0].class_id, 2);  // items 2, 3
  }
}

// uniform_items: a training object's item is drawn uniformly among its class's items, where the
// benchmark's forward probe favours the item after the longest run of other classes. Nine items
// of classes 1-9, then four of class 0 at brightness 100, 150, 200, 250: the probe lands on the
// first class-0 item from 10 of 13 start indices.
TEST(FashionScenes, UniformItemsDrawsEveryItemOfAClassAlikeInTrainingScenesOnly) {
  auto items = std::make_shared<FashionMnist>();
  const std::vector<int> levels = {100, 150, 200, 250};
  for (int c = 1; c < 10; ++c) items->labels.push_back(std::uint8_t(c));
  for (std::size_t k = 0; k < levels.size(); ++k) items->labels.push_back(0);
  items->pixels.assign(items->labels.size() * 784, 255);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    std::fill_n(items->pixels.begin() + std::ptrdiff_t((9 + k) * 784), 784, std::uint8_t(levels[k]));
  }
  // Which class-0 item a single-object scene shows: its brightest pixel over its tint's strongest channel.
  auto class0_counts = [&](const FashionScenes& scenes) {
    std::vector<int> counts(levels.size(), 0);
    for (std::size_t i = 0; i < scenes.size(); ++i) {
      const auto scene = scenes.get(i);
      if (scene.objects[0].class_id != 0) continue;
      const auto& tint = *std::find_if(scene_colours().begin(), scene_colours().end(),
                                       [&](const NamedColour& c) { return c.name == scene.objects[0].colour; });
      const double level = 255.0 * *std::max_element(scene.image.pixels.begin(), scene.image.pixels.end()) /
                           std::max({tint.r, tint.g, tint.b});
      const auto nearest = std::min_element(levels.begin(), levels.end(), [&](int a, int b) {
        return std::abs(a - level) < std::abs(b - level);
      });
      ++counts[std::size_t(nearest - levels.begin())];
    }
    return counts;
  };
  FashionScenesOptions probed, uniform;
  probed.max_objects = uniform.max_objects = 1;
  uniform.uniform_items = true;
  const auto before = class0_counts(FashionScenes("train", 600, items, probed));
  const auto after = class0_counts(FashionScenes("train", 600, items, uniform));
  const int n_before = std::accumulate(before.begin(), before.end(), 0), n_after = std::accumulate(after.begin(), after.end(), 0);
  ASSERT_GT(n_before, 30);
  ASSERT_GT(n_after, 30);
  EXPECT_GT(before[0], n_before / 2) << "the probe's favourite";
  for (std::size_t k = 0; k < levels.size(); ++k) {
    EXPECT_GT(after[k], n_after / 8) << "item " << k;  // a quarter each, expected
    EXPECT_LT(after[k], n_after / 2) << "item " << k;
  }
  EXPECT_NE(FashionScenes("train", 1, items, uniform).describe().find("drawn uniformly"), std::string::npos);
  // Validation and test scenes, the fixed benchmark, are drawn as before.
  for (const char* split : {"val", "test"}) {
    FashionScenes a(split, 30, items, probed), b(split, 30, items, uniform);
    EXPECT_FALSE(b.draws_items_uniformly());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a.get(i).image.pixels, b.get(i).image.pixels) << split << " " << i;
  }
}
