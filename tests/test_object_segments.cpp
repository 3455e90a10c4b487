// Objects on a plain background found without a model, and cut out onto canvases.
#include <gtest/gtest.h>

#include <random>

#include "core/fashion_scenes.h"
#include "core/object_segments.h"
#include "tests/test_support.h"

namespace fovea {
namespace {

void fill(RgbImage& im, int x0, int y0, int x1, int y1, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      auto* p = im.at(x, y);
      p[0] = r, p[1] = g, p[2] = b;
    }
  }
}

double iou(const ObjectSegment& s, const SceneObject& o) {
  const int ix = std::max(0, std::min(s.x1, o.x1) - std::max(s.x0, o.x0));
  const int iy = std::max(0, std::min(s.y1, o.y1) - std::max(s.y0, o.y0));
  const double inter = double(ix) * iy;
  return inter / (double(s.width()) * s.height() + double(o.x1 - o.x0) * (o.y1 - o.y0) - inter);
}

TEST(ObjectSegments, FindsEachObjectOnAPlainBackgroundLargestFirst) {
  RgbImage im(64, 64, 20);
  fill(im, 4, 6, 14, 30, 200, 10, 10);     // a red bar, 10 x 24
  fill(im, 30, 30, 60, 50, 10, 10, 180);   // a blue block, 30 x 20 (largest)
  fill(im, 40, 2, 42, 4, 255, 255, 255);   // a speck: 4 pixels
  EXPECT_EQ(background_level(im), 20);
  const auto segments = segment_objects(im);
  ASSERT_EQ(segments.size(), 2u) << "the speck is dropped";
  EXPECT_EQ(segments[0].x0, 30);
  EXPECT_EQ(segments[0].y0, 30);
  EXPECT_EQ(segments[0].x1, 60);
  EXPECT_EQ(segments[0].y1, 50);
  EXPECT_EQ(segments[0].pixels.size(), 600u);
  EXPECT_EQ(segments[1].x0, 4);
  EXPECT_EQ(segments[1].y1, 30);
  // A dark pixel of an object (below the background) does not split it; a gap of a pixel is
  // bridged only within reach.
  RgbImage gap(40, 20, 20);
  fill(gap, 2, 2, 10, 18, 90, 90, 90);
  fill(gap, 12, 2, 20, 18, 90, 90, 90);  // two px apart from the first
  EXPECT_EQ(segment_objects(gap).size(), 2u);
  SegmentOptions wide;
  wide.reach = 3;
  EXPECT_EQ(segment_objects(gap, wide).size(), 1u);
  // An object wider or taller than max_side is not one object (several touching, or a photograph).
  wide.max_side = 16;
  EXPECT_TRUE(segment_objects(gap, wide).empty());
  SegmentOptions narrow;
  narrow.max_side = 16;
  EXPECT_EQ(segment_objects(gap, narrow).size(), 2u);
}

TEST(ObjectSegments, PartsOfOneObjectAreJoinedAndItsBoxLeavesTheFaintHaloOut) {
  RgbImage im(64, 64, 20);
  fill(im, 10, 10, 20, 30, 200, 200, 200);  // a garment's two halves, 2 px apart
  fill(im, 22, 10, 30, 30, 200, 200, 200);
  fill(im, 30, 10, 31, 30, 30, 30, 30);     // and a faint halo on its right edge (10 above the background)
  fill(im, 50, 10, 60, 30, 200, 200, 200);  // a neighbour 19 px away
  EXPECT_EQ(segment_objects(im).size(), 3u);
  SegmentOptions join;
  join.merge_gap = 2;
  join.merge_side = 24;
  const auto joined = segment_objects(im, join);
  ASSERT_EQ(joined.size(), 2u) << "the halves are one object, the neighbour another";
  EXPECT_EQ(joined[0].x0, 10);
  EXPECT_EQ(joined[0].x1, 30) << "the halo's column is in the segment, not in its box";
  EXPECT_EQ(joined[0].pixels.size(), 200u + 160u + 20u);
  join.merge_side = 18;  // the halves together would be larger than one object
  EXPECT_EQ(segment_objects(im, join).size(), 3u);
}

TEST(ObjectSegments, ImagesWithoutAPlainBackgroundHaveNone) {
  RgbImage noise(48, 48);
  std::mt19937 rng(3);
  for (auto& v : noise.pixels) v = std::uint8_t(rng() % 256);
  EXPECT_TRUE(segment_objects(noise).empty());
  EXPECT_TRUE(segment_objects(RgbImage()).empty());
}

TEST(ObjectSegments, CutOutCentresTheObjectAloneOnTheBackground) {
  RgbImage im(64, 64, 12);
  fill(im, 10, 10, 30, 20, 200, 100, 0);  // 20 x 10, centre (20, 15)
  fill(im, 30, 10, 31, 20, 0, 0, 0);       // darker than the background: not part of anything
  fill(im, 31, 10, 50, 30, 0, 200, 0);     // a green neighbour two px to the right
  const auto segments = segment_objects(im);
  ASSERT_EQ(segments.size(), 2u);
  const auto& orange = segments[0].width() == 20 ? segments[0] : segments[1];
  ASSERT_EQ(orange.width(), 20);
  int box[4];
  const auto cut = cut_out(im, orange, 32, false, 12, box);
  EXPECT_EQ(box[0], 6);
  EXPECT_EQ(box[1], 11);
  EXPECT_EQ(box[2], 26);
  EXPECT_EQ(box[3], 21);
  int orange_pixels = 0, green_pixels = 0;
  for (int y = 0; y < 32; ++y) {
    for (int x = 0; x < 32; ++x) {
      const auto* p = cut.at(x, y);
      orange_pixels += p[0] == 200 && p[1] == 100;
      green_pixels += p[1] == 200;
      if (x < box[0] || x >= box[2] || y < box[1] || y >= box[3]) EXPECT_EQ(p[0], 12) << x << "," << y;
    }
  }
  EXPECT_EQ(orange_pixels, 200);
  EXPECT_EQ(green_pixels, 0) << "the neighbour inside the canvas is left out";
  const auto mirrored = cut_out(im, orange, 32, true, 12, box);
  EXPECT_EQ(box[0], 6);
  EXPECT_EQ(box[2], 26);
  EXPECT_EQ(mirrored.at(31 - 6, 11)[0], cut.at(6, 11)[0]);

  // A shifted view: the same pixels moved by (3, -2) px, then mirrored when asked.
  const auto shifted = cut_out(im, orange, 32, false, 12, box, 3, -2);
  EXPECT_EQ(box[0], 9);
  EXPECT_EQ(box[1], 9);
  EXPECT_EQ(box[2], 29);
  EXPECT_EQ(box[3], 19);
  for (int y = 0; y < 32; ++y) {
    for (int x = 0; x < 32; ++x) {
      const int sx = x - 3, sy = y + 2;
      const bool inside = sx >= 0 && sy >= 0 && sx < 32 && sy < 32;
      EXPECT_EQ(shifted.at(x, y)[0], inside ? cut.at(sx, sy)[0] : 12) << x << "," << y;
    }
  }
  const auto shifted_mirror = cut_out(im, orange, 32, true, 12, box, 3, -2);
  EXPECT_EQ(box[0], 32 - 29);
  EXPECT_EQ(box[2], 32 - 9);
  EXPECT_EQ(shifted_mirror.at(31 - 9, 9)[0], shifted.at(9, 9)[0]);
}

TEST(ObjectSegments, EachGarmentOfTheBuiltInScenesIsOneSegment) {
  FOVEA_REQUIRE_FASHION_MNIST();
  const FashionScenes test("test", 200);
  int objects = 0, matched = 0;
  for (std::size_t i = 0; i < test.size(); ++i) {
    const auto scene = test.get(i);
    SegmentOptions o;
    o.max_side = 48;
    const auto segments = segment_objects(scene.image, o);
    for (const auto& obj : scene.objects) {
      ++objects;
      double best = 0;
      for (const auto& s : segments) best = std::max(best, iou(s, obj));
      matched += best > 0.9;
    }
  }
  EXPECT_GT(double(matched) / objects, 0.93) << matched << " of " << objects;
}

}  // namespace
}  // namespace fovea
