// The live path: video files and cameras (core/data/video_io.h), moving-scene clips, the caption
// stabiliser's rule, and the shipped soft model following a moving item on a generated clip.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/video_io.h"
#include "core/datasets/moving_scenes.h"
#include "core/decode/caption_stabiliser.h"
#include "core/decode/captioner.h"
#include "core/eval/video_evaluation.h"
#include "core/render/video_export.h"
#include "tests/test_support.h"

namespace fovea {
namespace {

CaptionResult result(const std::string& text, double log_prob, float first_alpha) {
  CaptionResult r;
  r.grid_h = 1, r.grid_w = 2;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    r.words.push_back({text.substr(start, end - start), {first_alpha, 1 - first_alpha}, 1, -0.1f, -1});
    start = end + 1;
  }
  r.log_prob = log_prob;
  return r;
}

TEST(CaptionStabiliser, SwitchesOnlyAfterTheMarginHeldForTheFrames) {
  CaptionStabiliser s({1.0, 3});
  double shown_log_prob = -2;
  int scored = 0;
  auto score = [&](const std::string& text) { ++scored; return result(text, shown_log_prob, 0.25f); };
  auto first = s.update(result("a red bag", -1, 0.5f), score);
  EXPECT_TRUE(first.changed);
  EXPECT_EQ(first.shown.text(), "a red bag");
  EXPECT_EQ(scored, 0);
  // A rival better by 0.5 nats (under the margin): the shown caption stays, with this frame's α.
  auto under = s.update(result("a red boot", -1.5, 0.5f), score);
  EXPECT_FALSE(under.changed);
  EXPECT_EQ(under.shown.text(), "a red bag");
  EXPECT_FLOAT_EQ(under.shown.words[0].alpha[0], 0.25f);
  EXPECT_EQ(scored, 1);
  // Better by 1.5 nats: it takes three frames in a row; an interruption starts the count again.
  EXPECT_FALSE(s.update(result("a red boot", -0.5, 0.5f), score).changed);
  EXPECT_FALSE(s.update(result("a red boot", -0.5, 0.5f), score).changed);
  EXPECT_FALSE(s.update(result("a red bag", -1, 0.5f), score).changed);
  EXPECT_EQ(s.update(result("a red boot", -0.5, 0.5f), score).streak, 1);
  EXPECT_FALSE(s.update(result("a red boot", -0.5, 0.5f), score).changed);
  auto switched = s.update(result("a red boot", -0.5, 0.75f), score);
  EXPECT_TRUE(switched.changed);
  EXPECT_EQ(switched.shown.text(), "a red boot");
  EXPECT_FLOAT_EQ(switched.shown.words[0].alpha[0], 0.75f);
  s.reset();
  EXPECT_TRUE(s.update(result("a blue bag", -3, 0.5f), score).changed);
  EXPECT_THROW(CaptionStabiliser({1.0, 0}), std::invalid_argument);
}

TEST(VideoIo, WritesAndReadsBackFramesAndNamesWhatIsWrong) {
  test::TempDir dir("video-io");
  for (const char* name : {"clip.mp4", "clip.avi"}) {
    const auto path = (dir.path / name).string();
    {
      VideoWriter w(path, 64, 48, 10);
      for (int i = 0; i < 6; ++i) w.write(RgbImage(64, 48, std::uint8_t(40 * i)));
      w.close();
      EXPECT_FALSE(w.codec().empty());
    }
    VideoReader r(path);
    EXPECT_EQ(r.width(), 64);
    EXPECT_EQ(r.height(), 48);
    EXPECT_NEAR(r.fps(), 10, 0.01);
    EXPECT_FALSE(r.is_camera());
    RgbImage f;
    int n = 0;
    while (r.read(f)) {
      EXPECT_NEAR(f.pixels[3 * (24 * 64 + 32)], 40 * n, 12) << name << " frame " << n;
      ++n;
    }
    EXPECT_EQ(n, 6) << name;
    r.seek(4);
    ASSERT_TRUE(r.read(f));
    EXPECT_NEAR(f.pixels[0], 160, 12) << name << ": seek";
  }
  auto message = [](const std::function<void()>& fn) {
    try {
      fn();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto missing = (dir.path / "missing.mp4").string();
  EXPECT_NE(message([&] { VideoReader r(missing); }).find(missing + ": file not found"), std::string::npos);
  const auto text = (dir.path / "text.mp4").string();
  std::ofstream(text) << "not a video";
  EXPECT_NE(message([&] { VideoReader r(text); }).find(text + ": "), std::string::npos);
  EXPECT_NE(message([&] { VideoReader r("/dev/video97"); }).find("/dev/video97: no such camera"), std::string::npos);
  EXPECT_NE(message([&] { VideoWriter w((dir.path / "x.gif").string(), 64, 48, 10); }).find("x.gif"), std::string::npos);
  EXPECT_THROW(VideoWriter((dir.path / "odd.mp4").string(), 63, 48, 10), std::invalid_argument);
  EXPECT_TRUE(is_video_path("a/b.MP4"));
  EXPECT_TRUE(is_video_path("/dev/video0"));
  EXPECT_FALSE(is_video_path("scene.png"));
  EXPECT_FALSE(is_camera_path("/dev/videox"));
}

TEST(MovingScenes, ItemsMoveAtConstantSpeedAndTheirBoxesFollow) {
  FOVEA_REQUIRE_FASHION_MNIST();
  ClipOptions o;
  o.width = 160, o.height = 120, o.fps = 10, o.seconds = 1, o.min_objects = o.max_objects = 2, o.seed = 77;
  MovingScenes clips("val", 2, o);
  const Clip clip = clips.clip(1);
  ASSERT_EQ(clip.frames, 10);
  ASSERT_EQ(clip.items.size(), 2u);
  ClipFrameTruth a, b;
  const RgbImage f0 = clip_frame(clip, 0, &a);
  const RgbImage f1 = clip_frame(clip, 1, &b);
  EXPECT_NE(f0.pixels, f1.pixels);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& o0 = a.objects[i];
    const auto& o1 = b.objects[i];
    EXPECT_TRUE(o0.x0 >= 0 && o0.y0 >= 0 && o0.x1 <= 160 && o0.y1 <= 120);
    const double moved = std::hypot(o1.x0 - o0.x0, o1.y0 - o0.y0);
    const double speed = std::hypot(clip.items[i].vx, clip.items[i].vy) / 10;  // pixels a frame
    const bool at_edge = o1.x0 == 0 || o1.y0 == 0 || o1.x1 == 160 || o1.y1 == 120;  // bounced off it
    if (!at_edge) EXPECT_NEAR(moved, speed, 1.5) << "item " << i;
    EXPECT_GT(speed, 0.15 * 120 / 10 - 0.01);
  }
  EXPECT_FALSE(a.captions.empty());
  test::TempDir dir("moving-scenes");
  const auto video = (dir.path / "c.avi").string(), json = (dir.path / "c.json").string();
  write_clip(clip, video, json);
  const ClipTruth truth = read_clip_truth(json);
  EXPECT_EQ(truth.video, video);
  ASSERT_EQ(truth.frames.size(), 10u);
  EXPECT_EQ(truth.frames[1].objects[0].x0, b.objects[0].x0);
  EXPECT_EQ(truth.frames[1].captions, b.captions);
  EXPECT_THROW(read_clip_truth(video), std::runtime_error);
}

// A clip's annotations are checked as they are read: a nonsense entry is refused, naming the file
// and the entry, in plain words (not the JSON library's), and the video stays in the clip's folder.
TEST(MovingScenes, AnnotationsThatMakeNoSenseAreRefusedByEntry) {
  test::TempDir dir("clip-truth");
  const auto json = dir / "c.json";
  const nlohmann::json good = {
      {"video", "c.mp4"}, {"fps", 10}, {"width", 160}, {"height", 120},
      {"frames", {{{"index", 0}, {"time", 0.0}, {"captions", {"a red bag"}},
                   {"objects", {{{"noun", "bag"}, {"colour", "red"}, {"class_id", 8}, {"box", {10, 20, 40, 60}}}}}}}}};
  const auto message = [&](const std::function<void(nlohmann::json&)>& change) {
    auto j = good;
    change(j);
    std::ofstream(json) << j.dump();
    return test::error_message([&] { read_clip_truth(json); });
  };
  std::ofstream(json) << good.dump();
  EXPECT_EQ(read_clip_truth(json).video, dir / "c.mp4");
  const auto box = [](nlohmann::json& j) -> nlohmann::json& { return j["frames"][0]["objects"][0]["box"]; };
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
      {[](nlohmann::json& j) { j["fps"] = 0; }, "\"fps\": a frame rate of 0"},
      {[](nlohmann::json& j) { j["fps"] = -25; }, "\"fps\": a frame rate of -25"},
      {[](nlohmann::json& j) { j["fps"] = "fast"; }, "\"fps\": expected a number, not string"},
      {[&](nlohmann::json& j) { box(j) = {40, 20, 10, 60}; }, "frames[0].objects[0].box: [40,20,10,60] is inverted or empty"},
      {[&](nlohmann::json& j) { box(j) = {10, 20, 10, 60}; }, "frames[0].objects[0].box: [10,20,10,60] is inverted or empty"},
      {[&](nlohmann::json& j) { box(j) = {10, 20, 400, 60}; }, "reaches outside the 160x120 frame"},
      {[&](nlohmann::json& j) { box(j) = {10, 20}; }, "a box is [x0, y0, x1, y1], not 2 numbers"},
      {[](nlohmann::json& j) { j["frames"][0]["captions"] = nlohmann::json::array(); }, "frames[0].captions: no reference captions"},
      {[](nlohmann::json& j) { j["frames"] = nlohmann::json::array(); }, "\"frames\": no frames described"},
      {[](nlohmann::json& j) { j["video"] = "../../../etc/passwd"; }, "\"video\": \"../../../etc/passwd\" lies outside the clip's folder"},
      {[](nlohmann::json& j) { j["video"] = "/etc/passwd"; }, "\"video\": \"/etc/passwd\" lies outside the clip's folder"},
      {[](nlohmann::json& j) { j.erase("width"); }, "\"width\": no \"width\""},
      {[](nlohmann::json& j) { j = nlohmann::json::array({1, 2}); }, "expected an object {...}, not array"},
  };
  for (const auto& [change, expected] : cases) {
    const auto said = message(change);
    EXPECT_EQ(said.rfind(json + ": not a clip annotation file (", 0), 0u) << said;
    EXPECT_NE(said.find(expected), std::string::npos) << "expected \"" << expected << "\" in: " << said;
    EXPECT_EQ(said.find("json.exception"), std::string::npos) << said;
  }
  std::ofstream(json) << "{\"video\": \"c.mp4\", \"fps\": ";  // cut short
  const auto cut = test::error_message([&] { read_clip_truth(json); });
  EXPECT_NE(cut.find(json + ": not valid JSON at byte"), std::string::npos) << cut;
  EXPECT_EQ(cut.find("json.exception"), std::string::npos) << cut;
}

// The shipped soft model on a clip of one item gliding across: α's peak follows it.
TEST(LiveCaptioning, AlphaFollowsTheMovingItemOnAGeneratedClip) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("live");
  ClipOptions o;
  o.width = o.height = 224, o.fps = 10, o.seconds = 1.2, o.min_objects = o.max_objects = 1, o.seed = 31;
  MovingScenes clips("val", 2, o);
  for (std::size_t i = 0; i < 2; ++i) {
    write_clip(clips.clip(i), (dir.path / ("c" + std::to_string(i) + ".mp4")).string(),
               (dir.path / ("c" + std::to_string(i) + ".json")).string());
  }
  Captioner captioner(std::string(FOVEA_SOURCE_DIR) + "/models/fashion-soft.ckpt");
  CaptionOptions greedy;
  greedy.beam = 1;
  const auto e = evaluate_video_folder(captioner, dir.path.string(), greedy, StabiliserRule{});
  EXPECT_EQ(e.clips, 2u);
  EXPECT_EQ(e.frames, 24);
  ASSERT_GT(e.grounding.phrase.count, 12);
  // Chance (the box's share of the grid) is about a tenth here; the model points far above it.
  EXPECT_GT(e.grounding.phrase.pointing(), 0.7) << "pointing " << e.grounding.phrase.pointing();
  EXPECT_GT(e.grounding.phrase.pointing(), 3 * e.grounding.phrase.chance_level());
  EXPECT_LE(e.changes, e.candidate_changes);  // the stabiliser never adds changes
  // The annotated export: as many frames as the input, wider for the caption band under them.
  LiveCaptioner live(captioner, greedy);
  const auto out = (dir.path / "annotated.avi").string();
  const auto s = export_annotated_video((dir.path / "c0.mp4").string(), out, live);
  EXPECT_EQ(s.frames, 12);
  VideoReader back(out);
  EXPECT_EQ(back.width(), 224);
  EXPECT_GT(back.height(), 224);
  EXPECT_THROW(export_annotated_video(out, out, live), std::invalid_argument);
}

}  // namespace
}  // namespace fovea
