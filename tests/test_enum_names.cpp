// Settings that are words read back as they were written, and a word that names nothing refused
// with the words that do: attention kind, initial state, penalty reduction and colormap.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/model/model_config.h"
#include "core/render/heatmap.h"
#include "core/train/objective_options.h"
#include "tests/test_support.h"

using namespace fovea;

TEST(EnumNames, EachWordReadsBackAsWrittenAndAnUnknownOneIsRefusedWithTheKnownOnes) {
  for (auto k : {AttentionKind::Soft, AttentionKind::Hard}) EXPECT_EQ(parse_attention(to_string(k)), k);
  for (auto s : {InitState::Mean, InitState::Zero, InitState::Learned}) EXPECT_EQ(parse_init_state(to_string(s)), s);
  for (auto r : {PenaltyReduction::Sum, PenaltyReduction::Mean}) EXPECT_EQ(parse_penalty_reduction(to_string(r)), r);
  for (const auto& name : colormap_names()) EXPECT_EQ(to_string(parse_colormap(name)), name);
  EXPECT_EQ(parse_colormap("grey"), Colormap::Gray);
  EXPECT_EQ(test::error_message([] { parse_attention("medium"); }), "attention must be 'soft' or 'hard', got 'medium'");
  EXPECT_EQ(test::error_message([] { parse_init_state("x"); }), "init state must be 'mean', 'zero' or 'learned', got 'x'");
  EXPECT_EQ(test::error_message([] { parse_penalty_reduction("max"); }),
            "penalty reduction must be 'sum' or 'mean', got 'max'");
  EXPECT_EQ(test::error_message([] { parse_colormap("rainbow"); }),
            "unknown colormap 'rainbow' (expected spotlight, viridis, inferno, jet or gray)");
}
