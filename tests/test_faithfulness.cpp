// The removal test's parts: which cells hold α's mass, what removing them does to the image, and
// where the control removal goes.
#include <gtest/gtest.h>

#include <numeric>

#include "core/eval/faithfulness.h"

using namespace fovea;

TEST(Faithfulness, TheCellsHoldingHalfOfAlphaComeLargestFirst) {
  std::vector<float> alpha(16, 0.02f);
  alpha[5] = 0.4f, alpha[6] = 0.2f, alpha[9] = 0.12f;  // 0.72 in three cells, 0.28 spread
  EXPECT_EQ(cells_holding(alpha), (std::vector<int>{5, 6}));
  EXPECT_EQ(cells_holding(alpha, 0.7), (std::vector<int>{5, 6, 9}));
  EXPECT_EQ(cells_holding(alpha, 0.0), (std::vector<int>{5})) << "at least one cell";
}

TEST(Faithfulness, AWordWhoseAttentionSpreadsLooksAtNoOnePlace) {
  std::vector<float> uniform(196, 1.0f / 196);  // 90% of it takes 177 cells
  EXPECT_TRUE(looks_at_no_one_place(uniform));
  std::vector<float> half(196, 0.0f);  // an even spread over half the grid: 89 cells hold 90%
  for (int i = 0; i < 98; ++i) half[std::size_t(i)] = 1.0f / 98;
  EXPECT_TRUE(looks_at_no_one_place(half));
  std::vector<float> object(196, 0.1f / 180);  // 16 cells of an object hold 90%
  for (int i = 0; i < 16; ++i) object[std::size_t(i * 3)] = 0.9f / 16;
  EXPECT_FALSE(looks_at_no_one_place(object));
}

TEST(Faithfulness, RemovingCellsFillsThemWithTheBackgroundAndNothingElse) {
  RgbImage image(40, 40, 10);  // a dark background
  for (int y = 10; y < 20; ++y)
    for (int x = 10; x < 20; ++x) image.at(x, y)[0] = 250;  // a red square filling cell (1, 1) of a 4x4 grid
  const RgbImage out = remove_cells(image, {5}, 4, 4);
  EXPECT_EQ(out.at(15, 15)[0], 10) << "the cell takes the border's colour";
  EXPECT_EQ(out.at(25, 25)[0], 10);
  EXPECT_EQ(remove_cells(image, {10}, 4, 4).at(15, 15)[0], 250) << "another cell leaves the square";
  EXPECT_EQ(remove_cells(image, {}, 4, 4).pixels, image.pixels);
}

TEST(Faithfulness, TheControlGoesOnAnotherObjectElseOnTheFarBackground) {
  Scene scene;
  scene.image = RgbImage(80, 80);
  scene.objects.push_back({0, 0, 20, 20, 7, "sneaker", "red"});     // grid 8x8: cells (0..1, 0..1)
  scene.objects.push_back({60, 60, 80, 80, 8, "bag", "blue"});      // cells (6..7, 6..7)
  const std::vector<int> attended = {0, 1};
  const auto control = control_cells(scene, scene.objects[0], attended, 8, 8);
  ASSERT_EQ(control.size(), attended.size());
  for (int c : control) {
    EXPECT_GE(c / 8, 5) << "on the bag's box (grown by half a cell), not the sneaker's: cell " << c;
    EXPECT_GE(c % 8, 5) << c;
  }
  scene.objects.pop_back();
  const auto background = control_cells(scene, scene.objects[0], attended, 8, 8);
  ASSERT_EQ(background.size(), 2u);
  EXPECT_EQ(background[0], 63) << "the corner furthest from the sneaker";
}

TEST(Faithfulness, TakeItAwaysControlGoesWhereAnotherWordLooksElseFarAway) {
  // A 4x4 grid: "bag" looks at the top-left corner, "shoe" at the bottom-right, "and" everywhere.
  CaptionResult caption;
  caption.grid_h = caption.grid_w = 4;
  const auto word = [](const char* text, std::vector<int> cells) {
    WordAttention w;
    w.word = text;
    w.alpha.assign(16, cells.empty() ? 1.f / 16 : 0.001f);
    for (int c : cells) w.alpha[std::size_t(c)] = 0.8f / float(cells.size());
    return w;
  };
  caption.words = {word("bag", {0, 1}), word("and", {}), word("shoe", {15, 14})};
  const auto attended = cells_holding(caption.words[0].alpha, kAttendedMass);
  int source = -2;
  const auto control = alpha_control_cells(caption, 0, attended, &source);
  EXPECT_EQ(source, 2) << "the shoe's word, not the diffuse one";
  ASSERT_EQ(control.size(), attended.size());
  EXPECT_EQ(control, (std::vector<int>{14, 15})) << "where \"shoe\" looks";

  // Only diffuse words besides: as many cells as far from the attended ones as possible.
  caption.words.pop_back();
  const auto far = alpha_control_cells(caption, 0, {0}, &source);
  EXPECT_EQ(source, -1);
  EXPECT_EQ(far, (std::vector<int>{15}));

  // A removal of half the grid still gets an equal-sized control, never overlapping it: the far
  // row first, then the row next to the removal.
  std::vector<int> half(8);
  std::iota(half.begin(), half.end(), 0);
  EXPECT_EQ(alpha_control_cells(caption, 0, half, &source), (std::vector<int>{12, 13, 14, 15, 8, 9, 10, 11}));
}
