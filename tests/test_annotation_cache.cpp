// The annotation cache (core/data/annotation_cache.h) and training from it
// (core/train/annotation_features.h): entries stored in bfloat16 with a CRC-32 each, a damaged
// entry found and computed again, an interrupted build going on where it stopped, a changed
// backbone file rebuilding, and a run with a frozen backbone following the same loss curve with
// the cache as without it; a cache with no room on its disk fails with a clear error.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>
#include <nlohmann/json.hpp>

#include "core/data/annotation_cache.h"
#include "core/data/dataset_source.h"
#include "core/data/image_io.h"
#include "core/io/file_lock.h"
#include "core/train/annotation_features.h"
#include "core/runtime/runtime.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"
#include "tests/squares_corpus.h"
#include "tests/tiny_backbone.h"

namespace fovea {
namespace {

namespace fs = std::filesystem;

/// Flips one byte of `path` at `offset`.
void flip_byte(const std::string& path, std::uint64_t offset) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekg(std::streamoff(offset));
  char c = 0;
  f.read(&c, 1);
  c = char(c ^ 0x5A);
  f.seekp(std::streamoff(offset));
  f.write(&c, 1);
}

TEST(AnnotationCache, StoresEachEntryInBfloat16AndRepairsADamagedOne) {
  test::TempDir dir("annotation-cache");
  torch::manual_seed(3);
  const auto values = torch::randn({5, 6, 4}) * 10;
  {
    auto cache = AnnotationCache::open("key", 5, 6, 4, dir.path.string());
    EXPECT_FALSE(cache.complete());
    EXPECT_EQ(cache.missing().size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) cache.write(i, values[std::int64_t(i)]);
    EXPECT_TRUE(cache.finish());
  }
  auto cache = AnnotationCache::open("key", 5, 6, 4, dir.path.string());
  ASSERT_TRUE(cache.complete()) << "a finished cache is reused";
  const auto read = cache.read({4, 0, 2});
  const auto expected = torch::stack({values[4], values[0], values[2]});
  // bfloat16 keeps 8 significant bits: each value within 2^-8 of itself, relatively.
  EXPECT_TRUE(torch::allclose(read, expected, 1.0 / 256, 0)) << (read - expected).abs().max().item<double>();
  EXPECT_TRUE(torch::equal(read, expected.to(torch::kBFloat16).to(torch::kFloat)));
  const auto stored = cache.read_stored({4, 0, 2});  // for bf16 steps: as stored, not widened
  EXPECT_EQ(stored.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(stored, expected.to(torch::kBFloat16)));

  // One byte of entry 3 flipped on disk: the read finds it and, with no repair function, says so.
  const auto header_and_table = fs::file_size(cache.path()) - 5 * 6 * 4 * 2;
  flip_byte(cache.path(), header_and_table + 3 * 6 * 4 * 2 + 7);
  try {
    cache.read({3});
    FAIL() << "a damaged entry was read as if intact";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("entry 3"), std::string::npos) << e.what();
  }
  std::vector<std::string> said;
  int computed = 0;
  cache.set_repair([&](std::size_t i) { return ++computed, values[std::int64_t(i)]; },
                   [&](const std::string& m) { said.push_back(m); });
  EXPECT_TRUE(torch::equal(cache.read({3, 1})[0], values[3].to(torch::kBFloat16).to(torch::kFloat)));
  EXPECT_EQ(computed, 1) << "only the damaged entry is computed again";
  EXPECT_EQ(cache.repaired(), 1u);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("entry 3 was damaged"), std::string::npos) << said[0];
  // Written back: a later open reads it intact.
  auto reopened = AnnotationCache::open("key", 5, 6, 4, dir.path.string());
  EXPECT_NO_THROW(reopened.read({3}));

  // Another key: another file, built from nothing.
  EXPECT_EQ(AnnotationCache::open("other key", 5, 6, 4, dir.path.string()).missing().size(), 5u);
}

TEST(AnnotationCache, NoRoomOnItsDiskIsAClearErrorNotACrash) {
  // A file-size limit of 64 KiB stands in for a full disk (SIGXFSZ ignored, as a full disk sends
  // none). The cache's room is taken when it is made: without it, reading a page that has no
  // block behind it killed the process (SIGBUS).
  test::TempDir dir("annotation-cache-full");
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = before;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto message = test::error_message([&] { AnnotationCache::open("key", 100, 196, 128, dir.path.string()); });
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(message.find("cannot write the annotation cache (File too large)"), std::string::npos) << message;
  EXPECT_NE(message.find(dir.path.string()), std::string::npos) << message;
  for (const auto& entry : fs::directory_iterator(dir.path)) ADD_FAILURE() << "left behind: " << entry.path();
}

TEST(AnnotationCache, AnInterruptedBuildGoesOnWhereItStopped) {
  test::TempDir dir("annotation-partial");
  const auto values = torch::randn({6, 2, 3});
  {
    auto cache = AnnotationCache::open("key", 6, 2, 3, dir.path.string());
    for (std::size_t i : {0, 2, 3}) cache.write(i, values[std::int64_t(i)]);
    EXPECT_FALSE(cache.finish()) << "three entries are missing";
  }  // the process stops here
  auto cache = AnnotationCache::open("key", 6, 2, 3, dir.path.string());
  EXPECT_FALSE(cache.complete());
  EXPECT_EQ(cache.missing(), (std::vector<std::size_t>{1, 4, 5}));
  for (std::size_t i : {1, 4, 5}) cache.write(i, values[std::int64_t(i)]);
  EXPECT_TRUE(cache.finish());
  EXPECT_FALSE(fs::exists(cache.path() + ".partial"));
  EXPECT_TRUE(torch::allclose(cache.read({0, 1, 2, 3, 4, 5}), values, 1.0 / 256, 1e-6));
}

#define FOVEA_REQUIRE_IMAGE_IO() \
  if (!image_io_available()) GTEST_SKIP() << "built without OpenCV: no image files"

/// The training images as they are, but with nothing to key a cache by: the run computes every
/// step's annotations with its encoder.
class Uncached : public SceneSource {
 public:
  explicit Uncached(std::shared_ptr<const SceneSource> s) : s_(std::move(s)) {}
  std::size_t size() const override { return s_->size(); }
  Scene get(std::size_t i) const override { return s_->get(i); }
  std::string describe() const override { return s_->describe(); }

 private:
  std::shared_ptr<const SceneSource> s_;
};

struct Curve {
  std::vector<double> losses;
  std::vector<std::string> messages;
  bool said(const std::string& part) const {
    for (const auto& m : messages) {
      if (m.find(part) != std::string::npos) return true;
    }
    return false;
  }
};

Curve train_squares(const TrainConfig& config, bool cached) {
  Curve curve;
  TrainCallbacks cb;
  cb.on_record = [&](const TrainRecord& r) { curve.losses.push_back(r.loss); };
  cb.on_message = [&](const std::string& m) { curve.messages.push_back(m); };
  auto data = make_train_data(config);
  if (!cached) data.train = std::make_shared<Uncached>(data.train);
  train(config, cb, data);
  return curve;
}

TEST(AnnotationFeatures, AFrozenBackboneTrainsFromTheCacheWithTheSameLossCurve) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("annotation-training");
  ::setenv("FOVEA_CACHE_DIR", (dir / "cache").c_str(), 1);
  torch::manual_seed(11);
  auto config = test::tiny_training(dir / "uncached");
  config.dataset = "karpathy:" + make_corpus(dir, 36);
  config.images_dir = dir / "imgs";
  config.backbone = test::write_tiny_backbone(dir / "backbone.pt");
  config.train_scenes = 0;
  config.val_scenes = 4;
  config.batch_size = 8;
  config.max_steps = 20;
  config.epochs = 10;
  const auto without = train_squares(config, false);
  EXPECT_FALSE(without.said("computing the annotations of 32"));
  config.out_dir = dir / "cached";
  const auto with = train_squares(config, true);
  ASSERT_TRUE(with.said("computing the annotations of 32 images")) << "the run did not build the cache";
  ASSERT_EQ(with.losses.size(), without.losses.size());
  ASSERT_GE(with.losses.size(), 3u);
  // The cache stores the annotations in bfloat16 (each within 2^-8 of itself): the losses
  // follow the uncached run's within 1% (seen: about 1e-4).
  double largest = 0;
  for (std::size_t i = 0; i < with.losses.size(); ++i) {
    EXPECT_NEAR(with.losses[i], without.losses[i], 0.01 * without.losses[i]) << "record " << i;
    largest = std::max(largest, std::abs(with.losses[i] - without.losses[i]) / without.losses[i]);
  }
  RecordProperty("largest_relative_loss_difference", std::to_string(largest));
  std::printf("losses with and without the cache: largest relative difference %.2e\n", largest);
  EXPECT_LT(with.losses.back(), with.losses.front()) << "the decoder learned from the cached annotations";

  // bf16 products take the cached values as they are stored: the same curve, to bf16's rounding
  // (seen: about 2e-4).
  if (cpu_has_native_bf16()) {
    config.out_dir = dir / "cached-bf16";
    config.precision = "bf16";
    const auto bf16 = train_squares(config, true);
    config.precision = "fp32";
    ASSERT_EQ(bf16.losses.size(), with.losses.size());
    double bf16_largest = 0;
    for (std::size_t i = 0; i < bf16.losses.size(); ++i) {
      EXPECT_NEAR(bf16.losses[i], with.losses[i], 0.1 * with.losses[i]) << "bf16 record " << i;
      bf16_largest = std::max(bf16_largest, std::abs(bf16.losses[i] - with.losses[i]) / with.losses[i]);
    }
    std::printf("bf16 from the cache against fp32: largest relative loss difference %.2e\n", bf16_largest);
    EXPECT_LT(bf16.losses.back(), bf16.losses.front()) << "bf16: the decoder learned from the cached annotations";
  }

  // The same data and backbone again: read from the cache, nothing computed.
  config.out_dir = dir / "again";
  config.max_steps = 2;
  const auto again = train_squares(config, true);
  EXPECT_FALSE(again.said("computing the annotations")) << "the finished cache was built again";
  EXPECT_TRUE(again.said("annotations of "));

  // Another backbone file (new weights, same shape): its annotations are computed afresh.
  test::write_tiny_backbone(config.backbone);
  config.out_dir = dir / "new-backbone";
  EXPECT_TRUE(train_squares(config, true).said("computing the annotations of 32 images"));
}

/// A 12-image Karpathy corpus (8 of them for training) in `dir`, a model with a frozen tiny
/// TorchScript backbone over it, and its annotation cache key: what the feature tests build from.
struct FrozenBackboneCorpus {
  TrainConfig config;
  TrainData data;
  CaptionModel model;
  std::string key;
};

/// Feature options whose messages are kept, in order, in `said`.
FeatureOptions options_telling(std::vector<std::string>& said) {
  FeatureOptions options;
  options.on_message = [&said](const std::string& m) { said.push_back(m); };
  return options;
}

FrozenBackboneCorpus frozen_backbone_corpus(const test::TempDir& dir) {
  FrozenBackboneCorpus c;
  c.config = test::tiny_training(dir / "run");
  c.config.dataset = "karpathy:" + make_corpus(dir, 12);
  c.config.images_dir = dir / "imgs";
  c.config.backbone = test::write_tiny_backbone(dir / "backbone.pt");
  c.config.train_scenes = 0;
  c.config.val_scenes = 4;
  ::setenv("FOVEA_CACHE_DIR", (dir / "cache").c_str(), 1);
  c.data = make_train_data(c.config);
  ModelConfig mc = c.config.model;
  mc.backbone_path = c.config.backbone;
  c.model = CaptionModel::create(mc, Vocabulary::build({{"a"}}, 1), torch::kCPU);
  c.key = annotation_cache_key(c.model, *c.data.train);
  return c;
}

TEST(AnnotationFeatures, ADamagedEntryIsComputedAgainByTheEncoder) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("annotation-repair");
  torch::manual_seed(5);
  auto [config, data, model, key] = frozen_backbone_corpus(dir);
  ASSERT_TRUE(encoder_is_fixed(config, model));
  ASSERT_FALSE(key.empty());
  std::vector<std::string> said;
  auto options = options_telling(said);
  options.batch = 3;
  auto cache = build_annotation_cache(model, data.train, key, options);
  ASSERT_TRUE(cache->complete());
  const auto intact = cache->read({5});
  const auto entry_bytes = std::uint64_t(cache->cells() * cache->dim() * 2);
  flip_byte(cache->path(), fs::file_size(cache->path()) - 3 * entry_bytes + 1);  // entry 5 of 8
  said.clear();
  EXPECT_TRUE(torch::equal(cache->read({5}), intact));
  EXPECT_EQ(cache->repaired(), 1u);
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said.back().find("entry 5 was damaged: computed again and repaired"), std::string::npos) << said.back();
}

TEST(AnnotationFeatures, AStoppedBuildGoesOnWhereItStopped) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("annotation-stop");
  torch::manual_seed(6);
  auto [config, data, model, key] = frozen_backbone_corpus(dir);
  std::atomic<bool> stop{false};
  std::vector<std::string> said;
  auto options = options_telling(said);
  options.batch = 3;
  options.stop = &stop;
  options.on_progress = [&](const FeatureProgress& p) {
    EXPECT_EQ(p.total, 8);
    stop = true;  // Ctrl-C during the first batch: it is finished and kept
  };
  EXPECT_FALSE(build_annotation_cache(model, data.train, key, options)->complete());
  stop = false;
  options.on_progress = {};
  said.clear();
  const auto cache = build_annotation_cache(model, data.train, key, options);
  EXPECT_TRUE(cache->complete());
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said.front().find("computing the annotations of 5 images (3 already in)"), std::string::npos) << said.front();
}

TEST(AnnotationFeatures, AnImageChangedInPlaceIsReadAgainAndOnlyItsAnnotationsComputedAgain) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("annotation-stale");
  torch::manual_seed(7);
  auto [config, data, model, key] = frozen_backbone_corpus(dir);
  std::vector<std::string> said;
  auto options = options_telling(said);
  ASSERT_TRUE(build_annotation_cache(model, data.train, key, options)->complete());
  // Same name, new pixels (as an edited photo), and a file only touched: one entry is stale.
  RgbImage changed(32, 32, 250);
  write_png(dir / "imgs/im2.png", changed);
  fs::last_write_time(dir.path / "imgs/im3.png", fs::last_write_time(dir.path / "imgs/im3.png") + std::chrono::seconds(5));
  said.clear();
  const auto reopened = make_train_data(config, options.on_message);
  EXPECT_NE(said.at(0).find("1 image(s) changed since they were cached (e.g. " + (dir / "imgs/im2.png") + "): read again"),
            std::string::npos)
      << said.at(0);
  said.clear();
  const auto cache = build_annotation_cache(model, reopened.train, annotation_cache_key(model, *reopened.train), options);
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said.front().find("computing the annotations of 1 of 8 images again"), std::string::npos) << said.front();
  const auto fresh = encode_scenes(model, *reopened.train, {2});
  EXPECT_TRUE(torch::allclose(cache->read({2}), fresh, 1.0 / 128, 1e-6)) << "the entry holds the new image's annotations";
  said.clear();
  build_annotation_cache(model, reopened.train, annotation_cache_key(model, *reopened.train), options);
  EXPECT_NE(said.front().find("annotations of "), std::string::npos) << "nothing left to compute: " << said.front();
}

TEST(AnnotationFeatures, VerifyRepairsEveryDamagedEntryAndHeaderDamageIsNamed) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("annotation-verify");
  torch::manual_seed(8);
  auto [config, data, model, key] = frozen_backbone_corpus(dir);
  std::vector<std::string> said;
  auto options = options_telling(said);
  auto cache = build_annotation_cache(model, data.train, key, options);
  const auto entry_bytes = std::uint64_t(cache->cells() * cache->dim() * 2);
  flip_byte(cache->path(), fs::file_size(cache->path()) - 7 * entry_bytes + 3);  // entry 1 of 8
  flip_byte(cache->path(), fs::file_size(cache->path()) - 2 * entry_bytes + 3);  // entry 6
  EXPECT_EQ(cache->damaged(), (std::vector<std::size_t>{1, 6}));
  said.clear();
  EXPECT_EQ(repair_annotation_cache(model, data.train, *cache, options), 2u);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said[0].find("entry 1 (scene 1) was damaged: computed again and repaired"), std::string::npos) << said[0];
  EXPECT_TRUE(cache->damaged().empty());
  // A damaged header: the file is named with what is wrong, and computed again.
  const auto path = cache->path();
  cache.reset();
  flip_byte(path, 30);
  said.clear();
  EXPECT_TRUE(build_annotation_cache(model, data.train, key, options)->complete());
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said.front().find(path + ": its header is damaged"), std::string::npos) << said.front();
}

TEST(AnnotationFeatures, ASecondBuilderWaitsForTheFirstThenReadsWhatItBuilt) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("annotation-two-builders");
  torch::manual_seed(9);
  auto [config, data, model, key] = frozen_backbone_corpus(dir);
  // Another process holds the cache's lock while it builds (a lock file held here, as it would be).
  auto holder = std::make_unique<FileLock>(AnnotationCache::lock_path(key), false);
  ASSERT_TRUE(holder->held());
  std::vector<std::string> said;
  std::mutex said_mutex;
  FeatureOptions options;
  options.on_message = [&](const std::string& m) {
    std::lock_guard<std::mutex> lock(said_mutex);
    said.push_back(m);
  };
  std::thread second([&] { build_annotation_cache(model, data.train, key, options); });
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard<std::mutex> lock(said_mutex);
      if (!said.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  {
    std::lock_guard<std::mutex> lock(said_mutex);
    ASSERT_FALSE(said.empty());
    EXPECT_NE(said.front().find("waiting for pid " + std::to_string(::getpid())), std::string::npos) << said.front();
    EXPECT_EQ(said.size(), 1u) << "it waited instead of building beside the first";
  }
  holder.reset();
  second.join();
  EXPECT_NE(said.back().find("written to"), std::string::npos) << said.back();
}

}  // namespace
}  // namespace fovea
