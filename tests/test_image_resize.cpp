// The one image resize: bilinear with pixel centres aligned, antialiased when shrinking.
#include <gtest/gtest.h>

#include "core/data/image_tensor.h"

using namespace fovea;

TEST(ImageResize, ShrinkingAveragesInsteadOfAliasing) {
  RgbImage checker(64, 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) checker.at(x, y)[0] = checker.at(x, y)[1] = checker.at(x, y)[2] = (x + y) % 2 ? 255 : 0;
  const RgbImage small = resize_image(checker, 16, 16);
  ASSERT_EQ(small.width, 16);
  ASSERT_EQ(small.height, 16);
  for (int y = 2; y < 14; ++y)
    for (int x = 2; x < 14; ++x) EXPECT_NEAR(small.at(x, y)[0], 128, 8) << "a fine checkerboard shrinks to grey, not to stripes";
}

TEST(ImageResize, EnlargingInterpolatesBetweenPixelCentres) {
  RgbImage two(2, 1);
  two.at(0, 0)[0] = 0, two.at(1, 0)[0] = 200;
  const RgbImage wide = resize_image(two, 8, 1);
  EXPECT_EQ(wide.at(0, 0)[0], 0) << "left of the first centre: clamped";
  EXPECT_EQ(wide.at(7, 0)[0], 200);
  for (int x = 1; x < 8; ++x) EXPECT_GE(wide.at(x, 0)[0], wide.at(x - 1, 0)[0]) << "monotone between the centres";
  EXPECT_NEAR(wide.at(4, 0)[0], 125, 1) << "x=4 maps to 0.625 of the way from the first centre to the second";
  EXPECT_EQ(resize_image(two, 2, 1).pixels, two.pixels) << "the same size is a copy";
  EXPECT_THROW(resize_image(RgbImage(), 4, 4), std::invalid_argument);

  const auto t = images_to_tensor({&two}, 4);
  EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{1, 3, 4, 4}));
  EXPECT_NEAR(t.max().item<float>(), 200 / 255.0f, 1e-5);
}
