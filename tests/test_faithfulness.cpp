// The removal test's parts: which cells hold α's mass, what removing them does to the image, and
// where the control removal goes.
#include <gtest/gtest.h>

#include "core/eval/faithfulness.h"

using namespace fovea;

TEST(Faithfulness, TheCellsHoldingHalfOfAlphaComeLargestFirst) {
  std::vector<float> alpha(16, 0.02f);
  alpha[5] = 0.4f, alpha[6] = 0.2f, alpha[9] = 0.12f;  // 0.72 in three cells, 0.28 spread
  EXPECT_EQ(cells_holding(alpha), (std::vector<int>{5, 6}));
  EXPECT_EQ(cells_holding(alpha, 0.7), (std::vector<int>{5, 6, 9}));
  EXPECT_EQ(cells_holding(alpha, 0.0), (std::vector<int>{5})) << "at least one cell";
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
