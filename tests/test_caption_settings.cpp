// The caption settings are one table: the commands' options, their ranges and the docs come from
// it. Sampled glimpses draw from the captioner's own stream, never the process-wide one.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/data/image_io.h"
#include "core/decode/caption_settings.h"
#include "core/decode/captioner.h"
#include "core/train/train_settings.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

#ifdef FOVEA_BIN
std::string run(const std::string& command) {
  std::string out;
  if (FILE* p = popen((std::string(FOVEA_BIN) + " " + command + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, p)) > 0;) out.append(buffer, n);
    pclose(p);
  }
  return out;
}
#endif

}  // namespace

TEST(CaptionSettings, GreedyMeansBeamOneAndNoSeedMeansAFreshDraw) {
  CaptionChoices c;
  c.beam = 7;
  EXPECT_EQ(c.options().beam, 7);
  c.greedy = true;
  EXPECT_EQ(c.options().beam, 1);
  EXPECT_FALSE(c.options().seed.has_value());
  c.seed = 12;
  EXPECT_EQ(c.options().seed, std::optional<std::uint64_t>(12));
  EXPECT_THROW(caption_setting("beam_width"), std::invalid_argument);
}

TEST(CaptionSettings, EveryKeyReachesAFieldOfItsOwn) {
  // Each setting of the table, set by key to a value of its own, lands in a field no other key
  // shares: what the CLI and Python set by key is what the decoder gets.
  CaptionChoices c;
  std::int64_t n = 100;
  for (const auto& s : caption_settings()) {
    if (s.kind == CaptionSetting::Kind::Whole) c.whole(s.key) = ++n;
    if (s.kind == CaptionSetting::Kind::Text) c.text(s.key) = s.key;
  }
  n = 100;
  for (const auto& s : caption_settings()) {
    if (s.kind == CaptionSetting::Kind::Whole) EXPECT_EQ(c.whole(s.key), ++n) << s.key;
    if (s.kind == CaptionSetting::Kind::Text) EXPECT_EQ(c.text(s.key), s.key);
    if (s.kind == CaptionSetting::Kind::Flag) {
      for (const auto& other : caption_settings()) {
        if (other.kind == CaptionSetting::Kind::Flag) c.flag(other.key) = false;
      }
      c.flag(s.key) = true;
      for (const auto& other : caption_settings()) {
        if (other.kind == CaptionSetting::Kind::Flag) EXPECT_EQ(c.flag(other.key), other.key == s.key) << s.key;
      }
    }
  }
  EXPECT_EQ(c.every, c.whole("every"));
  EXPECT_EQ(c.seed, c.whole("seed"));
  EXPECT_THROW(c.whole("greedy"), std::invalid_argument);
  EXPECT_THROW(c.flag("beam"), std::invalid_argument);
}

#ifdef FOVEA_BIN
TEST(CaptionSettings, TheCommandsOptionsAndRangesAreTheTables) {
  const auto& beam = caption_setting("beam");
  const std::string range = "[" + std::to_string(beam.min) + " - " + std::to_string(beam.max) + "]";
  for (const char* command : {"caption", "eval", "take-away", "export"}) {
    const auto help = run(std::string(command) + " --help");
    EXPECT_NE(help.find("--beam"), std::string::npos) << command;
    EXPECT_NE(help.find(range), std::string::npos) << command << " does not range --beam as the table: " << help;
    EXPECT_NE(help.find(caption_setting("model").help), std::string::npos) << command;
  }
  const auto caption = run("caption --help");
  for (const auto& s : caption_settings()) {
    EXPECT_NE(caption.find(s.cli_name()), std::string::npos) << s.cli_name();
    EXPECT_NE(caption.find(s.help), std::string::npos) << s.help;
  }
  const auto beyond = run("caption --beam " + std::to_string(beam.max + 1) + " x.png");
  EXPECT_NE(beyond.find("--beam"), std::string::npos) << beyond;
}
#endif

TEST(CaptionSettings, TheDocsShowTheTablesAsTheyAre) {
  const auto cli = read_text(std::string(FOVEA_SOURCE_DIR) + "/docs/cli.md");
  EXPECT_NE(cli.find(caption_settings_markdown()), std::string::npos)
      << "docs/cli.md's caption options table differs from the table in core/decode/caption_settings.cpp; "
         "it should read:\n"
      << caption_settings_markdown();
  const auto training = read_text(std::string(FOVEA_SOURCE_DIR) + "/docs/training.md");
  EXPECT_NE(training.find(train_settings_markdown()), std::string::npos)
      << "docs/training.md's training options table differs from the table in core/train/train_settings.cpp; "
         "it should read:\n"
      << train_settings_markdown();
}

TEST(Captioner, SampledGlimpsesLeaveOtherThreadsRandomNumbersAlone) {
  const std::string model = std::string(FOVEA_SOURCE_DIR) + "/models/fashion-hard.ckpt";
  const auto image = read_image(std::string(FOVEA_SOURCE_DIR) + "/resources/samples/test_00001.png");
  Captioner captioner(model);  // (loading builds the model, drawing its initial weights first)
  ASSERT_EQ(captioner.config().attention, AttentionKind::Hard);
  torch::manual_seed(5);
  const auto expected = torch::rand({16});
  torch::manual_seed(5);
  std::vector<std::string> captions;
  std::thread other([&] {
    CaptionOptions sampled;
    sampled.sample_glimpses = true;
    sampled.seed = 3;
    captions.push_back(captioner.caption(image, sampled).text());
    captions.push_back(captioner.caption(image, sampled).text());
    sampled.seed.reset();
    captioner.caption(image, sampled);
  });
  other.join();
  EXPECT_TRUE(torch::equal(torch::rand({16}), expected)) << "captioning in another thread moved this thread's stream";
  ASSERT_EQ(captions.size(), 2u);
  EXPECT_EQ(captions[0], captions[1]) << "the same seed drew other glimpses";
}
