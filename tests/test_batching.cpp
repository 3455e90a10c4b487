// Batches: deterministic by (seed, epoch, index); per-cell labels follow the object boxes.
#include <gtest/gtest.h>

#include "core/data/batching.h"
#include "core/datasets/fashion_scenes.h"
#include "tests/test_support.h"

using namespace fovea;

TEST(CellLabels, CellsWhoseCentreIsInABoxCarryItsClassAndColour) {
  Scene s;
  s.image = RgbImage(112, 112);
  s.objects.push_back({0, 0, 24, 16, 7, "sneaker", "red"});      // cells (0,0) (0,1) (0,2) by centre (4, 12, 20)
  s.objects.push_back({100, 100, 103, 103, 8, "bag", "white"});  // holds no cell centre: the cell under its centre
  std::vector<std::int64_t> cls(14 * 14), col(14 * 14);
  const auto palette = scene_colour_names();
  ASSERT_TRUE(cell_labels(s, 14, 14, palette, cls.data(), col.data()));
  EXPECT_EQ(cls[0], 8);
  EXPECT_EQ(cls[2], 8);
  EXPECT_EQ(cls[3], 0);
  EXPECT_EQ(cls[14], 8);   // row 1 centre y = 12 < 16
  EXPECT_EQ(cls[28], 0);   // row 2 centre y = 20
  EXPECT_EQ(col[0], 1);    // red is colour 0
  EXPECT_EQ(cls[12 * 14 + 12], 9);
  EXPECT_EQ(col[12 * 14 + 12], 8);  // white is colour 7
  int labelled = 0;
  for (auto c : cls) labelled += c != 0;
  EXPECT_EQ(labelled, 3 * 2 + 1);
  Scene empty;
  empty.image = RgbImage(32, 32);
  EXPECT_FALSE(cell_labels(empty, 4, 4, palette, cls.data(), col.data()));
}

TEST(Batching, SameSeedAndEpochGiveTheSameBatch) {
  FOVEA_REQUIRE_FASHION_MNIST();
  FashionScenes scenes("train", 40);
  auto vocab = Vocabulary::build({{"a"}}, 1);
  EXPECT_EQ(epoch_order(40, 3, 2), epoch_order(40, 3, 2));
  EXPECT_NE(epoch_order(40, 3, 2), epoch_order(40, 3, 3));
  std::vector<std::size_t> idx = {5, 1, 9};
  auto a = make_batch(scenes, idx, vocab, 112, 3, 2, 24, 14, 14);
  auto b = make_batch(scenes, idx, vocab, 112, 3, 2, 24, 14, 14);
  EXPECT_TRUE(torch::equal(a.tokens, b.tokens));
  EXPECT_TRUE(torch::equal(a.images, b.images));
  EXPECT_TRUE(a.has_cell_labels);
  EXPECT_EQ(a.cell_class.sizes(), (std::vector<long>{3, 196}));
  // Every object of every scene labels at least one cell with its class.
  for (std::size_t i = 0; i < idx.size(); ++i) {
    for (const auto& o : scenes.get(idx[i]).objects) {
      EXPECT_TRUE(a.cell_class[long(i)].eq(o.class_id + 1).any().item<bool>()) << o.noun;
    }
  }
}

TEST(Batching, WordsNamingAnObjectAreTiedToItsBox) {
  Scene s;
  s.image = RgbImage(112, 112);
  SceneObject red_bag{0, 0, 30, 30, 8, "bag", "red"};
  SceneObject blue_top{60, 60, 100, 100, 0, "top", "blue"};
  s.objects = {red_bag, blue_top};
  const std::vector<std::string> words = {"a", "blue", "top", "to", "the", "right", "of", "a", "red", "bag"};
  EXPECT_EQ(named_objects(s, words), (std::vector<int>{-1, 1, 1, -1, -1, -1, -1, -1, 0, 0}));
  // A colour with the wrong noun names nothing.
  EXPECT_EQ(named_objects(s, {"a", "red", "top"}), (std::vector<int>{-1, -1, -1}));
  const auto cells = object_cells(red_bag, 112, 112, 14, 14);  // 8 px cells: box covers cells 0..3 (+ half-cell margin)
  EXPECT_TRUE(cells[0]);
  EXPECT_TRUE(cells[3 * 14 + 3]);
  EXPECT_FALSE(cells[4 * 14 + 4]);
  EXPECT_FALSE(cells[13 * 14 + 13]);
}
