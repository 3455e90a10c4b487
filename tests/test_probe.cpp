// "Look here": the α a probe forces for a region or a point, and how regions are read.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/decode/probe.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {
float sum(const std::vector<float>& a) { return std::accumulate(a.begin(), a.end(), 0.0f); }
}  // namespace

TEST(Probe, ARectangleSpreadsAttentionOverTheCellsItCoversByArea) {
  // A 40x40 image on a 4x4 grid: cells of 10 px. The box covers cells (1,1), (1,2) fully and half of (2,1), (2,2).
  const auto a = forced_alpha({10, 10, 30, 25, false}, 40, 40, 4, 4, AttentionKind::Soft);
  ASSERT_EQ(a.size(), 16u);
  EXPECT_NEAR(sum(a), 1.0f, 1e-6);
  EXPECT_NEAR(a[1 * 4 + 1], 1.0f / 3, 1e-6);
  EXPECT_NEAR(a[1 * 4 + 2], 1.0f / 3, 1e-6);
  EXPECT_NEAR(a[2 * 4 + 1], 1.0f / 6, 1e-6);
  EXPECT_EQ(a[0], 0.0f);
  EXPECT_EQ(a[3 * 4 + 3], 0.0f);
  // A hard model glimpses one cell: the one holding most of the box.
  const auto h = forced_alpha({10, 10, 30, 25, false}, 40, 40, 4, 4, AttentionKind::Hard);
  EXPECT_EQ(sum(h), 1.0f);
  EXPECT_EQ(*std::max_element(h.begin(), h.end()), 1.0f);
  EXPECT_TRUE(h[1 * 4 + 1] == 1.0f || h[1 * 4 + 2] == 1.0f);
  // Among cells the region covers alike, the one at its centre: the whole image is not its corner.
  const auto whole = forced_alpha({0, 0, 50, 50, false}, 50, 50, 5, 5, AttentionKind::Hard);
  EXPECT_EQ(whole[2 * 5 + 2], 1.0f);
  const auto lower_right = forced_alpha({20, 20, 40, 40, false}, 40, 40, 4, 4, AttentionKind::Hard);
  EXPECT_EQ(lower_right[2 * 4 + 2] + lower_right[2 * 4 + 3] + lower_right[3 * 4 + 2] + lower_right[3 * 4 + 3], 1.0f);
  // Corners in reverse order, or a rectangle without area, are refused (as every entry point
  // checks them, check_probe_region); parts outside the image are clipped.
  EXPECT_NE(test::error_message([] { forced_alpha({30, 25, 10, 10, false}, 40, 40, 4, 4, AttentionKind::Soft); })
                .find("region 30,25,10,10: inverted (x1 is left of x0)"),
            std::string::npos);
  EXPECT_NE(test::error_message([] { parse_probe_region("10,25,30,25"); }).find("region 10,25,30,25: covers no area (y0 = y1)"),
            std::string::npos);
  EXPECT_NE(test::error_message([] { forced_alpha({std::nan(""), 0, 10, 10, false}, 40, 40, 4, 4, AttentionKind::Soft); })
                .find("region nan,0,10,10: nan is not a pixel position"),
            std::string::npos);
  const auto clipped = forced_alpha({-50, -50, 10, 10, false}, 40, 40, 4, 4, AttentionKind::Soft);
  EXPECT_NEAR(clipped[0], 1.0f, 1e-6);
}

TEST(Probe, APointAttendsAroundItAndNonsenseIsRefusedByName) {
  const auto a = forced_alpha(parse_probe_region("25,5"), 40, 40, 4, 4, AttentionKind::Soft);
  EXPECT_NEAR(sum(a), 1.0f, 1e-5);
  EXPECT_EQ(std::max_element(a.begin(), a.end()) - a.begin(), 2) << "row 0, column 2 holds (25, 5)";
  EXPECT_GT(a[2], 2 * a[1]) << "a Gaussian of about a cell, not the whole image";
  const auto h = forced_alpha(parse_probe_region("25,5"), 40, 40, 4, 4, AttentionKind::Hard);
  EXPECT_EQ(h[2], 1.0f);

  const auto r = parse_probe_region(" 1.5, 2,30 ,40");
  EXPECT_FALSE(r.point);
  EXPECT_DOUBLE_EQ(r.x0, 1.5);
  EXPECT_DOUBLE_EQ(r.y1, 40);
  EXPECT_NE(test::error_message([] { parse_probe_region("1,2,3"); }).find("x0,y0,x1,y1"), std::string::npos);
  EXPECT_THROW(parse_probe_region("a,b"), std::invalid_argument);
  // A number too large for a double (400 digits) is named as not a pixel position, not "stod".
  const auto huge = test::error_message([] { parse_probe_region("1,1," + std::string(400, '9') + "," + std::string(400, '9')); });
  EXPECT_EQ(huge, "region: 999999999999... (400 digits) is not a pixel position; expected x0,y0,x1,y1 (a rectangle) or x,y "
                  "(a point) within the image, in pixels");
  const auto outside = test::error_message([] { forced_alpha({50, 50, 60, 60, false}, 40, 40, 4, 4, AttentionKind::Soft); });
  EXPECT_NE(outside.find("50,50,60,60"), std::string::npos) << outside;
  EXPECT_NE(outside.find("40x40"), std::string::npos) << outside;
  EXPECT_THROW(forced_alpha(parse_probe_region("40,10"), 40, 40, 4, 4, AttentionKind::Soft), std::invalid_argument);
}
