// The built-in fashion-scenes dataset: deterministic, five references, boxes that match.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/data/tokenizer.h"
#include "core/datasets/fashion_scenes.h"
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
  FashionScenesOptions mirror, unmirrored;  // training scenes mirror their items by default
  unmirrored.mirror_items = false;
  FashionScenes plain("train", 40, unmirrored), mirrored("train", 40, mirror);
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
    FashionScenes held_out(split, 20, unmirrored), held_out_mirror(split, 20, mirror);
    EXPECT_FALSE(held_out_mirror.mirrors_items());
    for (std::size_t i = 0; i < held_out.size(); ++i) EXPECT_EQ(held_out.get(i).image.pixels, held_out_mirror.get(i).image.pixels);
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

TEST(FashionScenes, AnImageSizeTooSmallForTheItemsSaysWhichSizesWork) {
  FOVEA_REQUIRE_FASHION_MNIST();
  FashionScenesOptions o;
  o.image_size = 16;
  EXPECT_EQ(test::error_message([&] { FashionScenes("train", 4, o); }),
            "fashion-scenes: an image size of 16 pixels is too small for the built-in scenes (their items need at least 8 "
            "pixels): the image size must be at least 32");
  o.image_size = 32;
  EXPECT_NO_THROW(FashionScenes("train", 4, o));
}
