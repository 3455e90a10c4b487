// Datasets on disk: Karpathy split files and COCO captions files made by the test itself, their
// images cached once (reused, rebuilt when the source changes), broken images reported by path
// or skipped, malformed JSON rejected with the file and the position, and a tiny model trained
// on a Karpathy fixture.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/data/caption_dataset.h"
#include "core/data/dataset_source.h"
#include "core/decode/captioner.h"
#include "core/data/image_cache.h"
#include "core/data/image_io.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"

using namespace fovea;
namespace fs = std::filesystem;

namespace {

#define FOVEA_REQUIRE_IMAGE_IO() \
  if (!image_io_available()) GTEST_SKIP() << "built without OpenCV: no image files"

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// Six 40x30 images, each a flat colour, in folder/imgs; a Karpathy file: 3 train, 1 restval, 1 val, 1 test.
std::string make_karpathy(const test::TempDir& dir, bool broken_image = false) {
  fs::create_directories(dir.path / "imgs" / "sub");
  nlohmann::json images = nlohmann::json::array();
  const char* splits[] = {"train", "train", "train", "restval", "val", "test"};
  const char* colours[] = {"red", "green", "blue", "yellow", "purple", "gray"};
  for (int i = 0; i < 6; ++i) {
    const std::string name = "im" + std::to_string(i) + ".png";
    write_png((dir.path / "imgs" / "sub" / name).string(), RgbImage(40, 30, std::uint8_t(40 * i)));
    images.push_back({{"filepath", "sub"},
                      {"filename", name},
                      {"imgid", i},
                      {"split", splits[i]},
                      {"sentences", {{{"raw", std::string("A ") + colours[i] + " square."}}, {{"raw", std::string("a ") + colours[i] + " thing"}}}}});
  }
  if (broken_image) {
    write_text((dir.path / "imgs" / "sub" / "broken.jpg").string(), "this is not a JPEG");
    images.push_back({{"filepath", "sub"}, {"filename", "broken.jpg"}, {"imgid", 6}, {"split", "train"},
                      {"sentences", {{{"raw", "a broken image"}}}}});
  }
  const auto path = dir / "dataset_tiny.json";
  write_text(path, nlohmann::json({{"images", images}, {"dataset", "tiny"}}).dump());
  return path;
}

ImageCacheOptions cache_in(const test::TempDir& dir, int size = 32) {
  ImageCacheOptions o;
  o.image_size = size;
  o.cache_dir = dir / "cache";
  return o;
}

}  // namespace

TEST(Datasets, KarpathySplitsAndCaptions) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("karpathy");
  const auto json = make_karpathy(dir);
  auto all = read_karpathy_dataset(json, dir / "imgs");
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0].path, (dir.path / "imgs" / "sub" / "im0.png").string());
  EXPECT_EQ(all[3].split, "train");  // restval trains
  EXPECT_EQ(select_split(all, "train").size(), 4u);
  EXPECT_EQ(select_split(all, "val").size(), 1u);

  auto train = open_dataset_split("karpathy:" + json, dir / "imgs", "train", cache_in(dir), 0);
  ASSERT_EQ(train->size(), 4u);
  const auto scene = train->get(1);
  EXPECT_EQ(scene.image.width, 32);
  EXPECT_EQ(scene.image.height, 32);
  EXPECT_EQ(scene.image.pixels[0], 40);  // im1's flat value survives decoding and resizing
  EXPECT_EQ(scene.captions, (std::vector<std::string>{"A green square.", "a green thing"}));
  EXPECT_TRUE(scene.objects.empty());
  auto test_split = open_dataset_split("karpathy:" + json, dir / "imgs", "test", cache_in(dir), 0);
  EXPECT_EQ(test_split->get(0).captions.front(), "A gray square.");
}

TEST(Datasets, TheCacheIsBuiltOnceAndRebuiltWhenTheSourceChanges) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("cache");
  const auto json = make_karpathy(dir);
  auto images = read_karpathy_dataset(json, dir / "imgs");
  auto first = ImageCache::open(images, describe_source_file(json), cache_in(dir));
  EXPECT_TRUE(first.was_built());
  EXPECT_TRUE(fs::exists(first.path()));
  auto again = ImageCache::open(images, describe_source_file(json), cache_in(dir));
  EXPECT_FALSE(again.was_built());
  EXPECT_EQ(again.image(5).pixels, first.image(5).pixels);

  // Another preprocessing (image size) or an edited annotation file: rebuilt.
  EXPECT_TRUE(ImageCache::open(images, describe_source_file(json), cache_in(dir, 16)).was_built());
  const auto reformatted = nlohmann::json::parse(std::ifstream(json)).dump(1);  // same data, another file
  write_text(json, reformatted);
  auto edited = ImageCache::open(images, describe_source_file(json), cache_in(dir));
  EXPECT_TRUE(edited.was_built());

  // A cache file cut short (crash while copying it) is rebuilt, not read.
  fs::resize_file(edited.path(), fs::file_size(edited.path()) - 100);
  EXPECT_TRUE(ImageCache::open(images, describe_source_file(json), cache_in(dir)).was_built());
}

/// Flips one byte of `path` at `offset` from its end.
void flip_byte_from_end(const std::string& path, std::uintmax_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(std::streamoff(fs::file_size(path) - offset));
  char c = 0;
  f.get(c);
  f.seekp(std::streamoff(fs::file_size(path) - offset));
  f.put(char(c ^ 0x10));
}

TEST(Datasets, ADamagedCacheEntryIsNamedReadAgainAndRepaired) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("damaged");
  const auto json = make_karpathy(dir);
  const auto images = read_karpathy_dataset(json, dir / "imgs");
  const auto source = describe_source_file(json);
  const auto built = ImageCache::open(images, source, cache_in(dir));
  const std::size_t last = built.size() - 1;
  const auto intact = built.image(last).pixels;
  const auto path = built.path();

  flip_byte_from_end(path, 7);  // inside the last image's pixels
  std::vector<std::string> said;
  const auto damaged = ImageCache::open(images, source, cache_in(dir), [&](const std::string& m) { said.push_back(m); });
  EXPECT_FALSE(damaged.was_built());  // the header is intact: only the entry is redone
  EXPECT_EQ(damaged.image(last).pixels, intact);
  EXPECT_EQ(damaged.repaired(), 1u);
  EXPECT_EQ(damaged.image(0).pixels, built.image(0).pixels);
  ASSERT_EQ(said.size(), 1u);
  const auto& source_file = images[built.kept()[last]].path;
  EXPECT_NE(said[0].find("entry " + std::to_string(last)), std::string::npos) << said[0];
  EXPECT_NE(said[0].find(source_file), std::string::npos) << said[0];
  // Repaired on disk: the next open reads it intact.
  const auto reopened = ImageCache::open(images, source, cache_in(dir));
  EXPECT_EQ(reopened.image(last).pixels, intact);
  EXPECT_EQ(reopened.repaired(), 0u);

  // Damage whose source is gone is an error naming the cache, the entry and the file.
  flip_byte_from_end(path, 7);
  fs::remove(source_file);
  const auto orphan = ImageCache::open(images, source, cache_in(dir));
  const auto error = test::error_message([&] { orphan.image(last); });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("entry " + std::to_string(last)), std::string::npos) << error;
  EXPECT_NE(error.find(source_file), std::string::npos) << error;

  // A damaged header is not trusted: the cache is rebuilt.
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(30);
  f.put('#');
  f.close();
  EXPECT_TRUE(ImageCache::open(images, source, cache_in(dir)).was_built());
}

TEST(Datasets, AFullDiskNamesTheCacheAndTheReasonAndLeavesNothingBehind) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("cache-full");
  const auto json = make_karpathy(dir);
  const auto images = read_karpathy_dataset(json, dir / "imgs");
  // Files may grow to 30 kB: the six 64x64 images (72 kB) do not fit, as on a full disk.
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  rlimit small = old;
  small.rlim_cur = 30000;
  ::setrlimit(RLIMIT_FSIZE, &small);
  const auto message = test::error_message([&] { ImageCache::open(images, describe_source_file(json), cache_in(dir, 64)); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  const std::string reason = ".bin: cannot write the image cache (File too large)";
  EXPECT_EQ(message.rfind(dir / "cache/images-", 0), 0u) << message;
  EXPECT_TRUE(message.size() > reason.size() && message.compare(message.size() - reason.size(), reason.size(), reason) == 0) << message;
  EXPECT_TRUE(fs::is_empty(dir / "cache")) << "a cache cut short, or its temporary files, left behind";
}

TEST(Datasets, TemporaryFilesOfAKilledCacheBuildAreRemovedOnceItsProcessIsGone) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("cache-leftovers");
  const auto json = make_karpathy(dir);
  const auto images = read_karpathy_dataset(json, dir / "imgs");
  const pid_t gone = ::fork();  // a process id that no longer runs
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  fs::create_directories(dir / "cache");
  const auto dead = dir / ("cache/images-00000000000000ab-32.bin.tmp" + std::to_string(gone));
  const auto alive = dir / ("cache/images-00000000000000cd-32.bin.tmp" + std::to_string(::getpid()));
  for (const auto& f : {dead, dead + ".pixels", alive + ".pixels"}) write_text(f, "half a cache");
  std::vector<std::string> said;
  ImageCache::open(images, describe_source_file(json), cache_in(dir), [&](const std::string& m) { said.push_back(m); });
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(dead + ".pixels"));
  EXPECT_TRUE(fs::exists(alive + ".pixels")) << "a build still running elsewhere keeps its files";
  EXPECT_NE(std::find_if(said.begin(), said.end(), [](const std::string& m) { return m.rfind("removed 2 unfinished image cache file(s)", 0) == 0; }),
            said.end());
}

TEST(Datasets, ABrokenImageIsNamedOrSkipped) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("broken");
  const auto json = make_karpathy(dir, /*broken_image=*/true);
  auto strict = cache_in(dir);
  strict.skip_bad_images = false;
  const auto message = test::error_message([&] { open_dataset_split("karpathy:" + json, dir / "imgs", "train", strict, 0); });
  EXPECT_NE(message.find("broken.jpg"), std::string::npos) << message;

  auto options = cache_in(dir);  // the default: left out, counted and named
  std::vector<std::string> said;
  auto train = open_dataset_split("karpathy:" + json, dir / "imgs", "train", options, 0, 0,
                                  [&](const std::string& m) { said.push_back(m); });
  EXPECT_EQ(train->size(), 4u);
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said.back().find("skipped 1"), std::string::npos) << said.back();
  EXPECT_NE(said.back().find("broken.jpg"), std::string::npos) << said.back();
}

TEST(Datasets, ImagePathsThatLeaveTheImagesFolderAreRefusedAndNamed) {
  test::TempDir dir("escape");
  fs::create_directories(dir.path / "imgs");
  const auto json = dir / "dataset_escape.json";
  auto entry = [](const std::string& filepath, const std::string& filename) {
    return nlohmann::json{{"filepath", filepath}, {"filename", filename}, {"split", "train"}, {"sentences", {{{"raw", "a thing"}}}}};
  };
  nlohmann::json images = {entry("", "fine.png"), entry("", "../../etc/passwd"), entry("sub", "ok/../fine.png"),
                           entry("", "/etc/hostname"), entry("sub/../..", "x.png"), entry("/abs", "y.png")};
  write_text(json, nlohmann::json({{"images", images}}).dump());
  const auto message = test::error_message([&] { read_karpathy_dataset(json, dir / "imgs"); });
  EXPECT_EQ(message, json + ": 4 images name files outside the images folder " + dir / "imgs" +
                         " (images[1] \"../../etc/passwd\", images[3] \"/etc/hostname\", images[4] \"sub/../../x.png\", ...);"
                         " image paths must be relative and stay inside that folder");

  const auto coco = dir / "captions_escape.json";
  write_text(coco, R"({"images": [{"id": 1, "file_name": "a.png"}, {"id": 2, "file_name": "../b.png"}], "annotations": []})");
  EXPECT_EQ(test::error_message([&] { read_coco_dataset(coco, dir / "imgs"); }),
            coco + ": 1 image names a file outside the images folder " + dir / "imgs" +
                " (images[1] \"../b.png\"); image paths must be relative and stay inside that folder");
}

TEST(Datasets, ANamedPipeInASplitIsSkippedAndNamedNotWaitedOn) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("fifo-split");
  const auto json = make_karpathy(dir);
  auto j = nlohmann::json::parse(std::ifstream(json));
  j["images"].push_back({{"filepath", "sub"}, {"filename", "pipe.png"}, {"split", "train"}, {"sentences", {{{"raw", "a pipe"}}}}});
  write_text(json, j.dump());
  test::NamedPipe pipe(dir / "imgs/sub/pipe.png");
  auto strict = cache_in(dir);
  strict.skip_bad_images = false;
  const auto message = test::error_message([&] { open_dataset_split("karpathy:" + json, dir / "imgs", "train", strict, 0); });
  EXPECT_NE(message.find("pipe.png: is not a regular file"), std::string::npos) << message;
  const auto train = open_dataset_split("karpathy:" + json, dir / "imgs", "train", cache_in(dir), 0);
  EXPECT_EQ(train->size(), 4u);
}

TEST(Datasets, MalformedFilesAreRejectedWithFileAndPosition) {
  test::TempDir dir("malformed");
  const auto bad = dir / "bad.json";
  write_text(bad, "{\"images\": [ {\"filename\": \"a.png\", ");
  auto message = test::error_message([&] { read_karpathy_dataset(bad, dir.path.string()); });
  EXPECT_NE(message.find(bad), std::string::npos) << message;
  EXPECT_NE(message.find("byte"), std::string::npos) << message;

  write_text(bad, R"({"images": [{"filename": "a.png", "split": "train", "sentences": []}, {"filename": "b.png"}]})");
  message = test::error_message([&] { read_karpathy_dataset(bad, dir.path.string()); });
  EXPECT_NE(message.find("images[1]"), std::string::npos) << message;

  write_text(bad, R"({"images": [{"id": 1, "file_name": "a.png"}], "annotations": [{"image_id": 1, "caption": "x"}, {"image_id": 7, "caption": "y"}]})");
  message = test::error_message([&] { read_coco_dataset(bad, dir.path.string()); });
  EXPECT_NE(message.find("annotations[1]"), std::string::npos) << message;
  EXPECT_NE(message.find("image_id 7"), std::string::npos) << message;

  EXPECT_THROW(check_dataset_name("flickr8k"), std::invalid_argument);
  EXPECT_NO_THROW(check_dataset_name("karpathy:/data/dataset_flickr8k.json"));
}

TEST(Datasets, CocoCaptionsFileGroupsCaptionsByImage) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("coco");
  fs::create_directories(dir.path / "val2014");
  nlohmann::json images = nlohmann::json::array(), annotations = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) {
    const std::string name = "COCO_" + std::to_string(i) + ".png";
    write_png((dir.path / "val2014" / name).string(), RgbImage(20, 20, 100));
    images.push_back({{"id", 100 + i}, {"file_name", name}});
    annotations.push_back({{"image_id", 100 + i}, {"id", i}, {"caption", "a picture " + std::to_string(i)}});
    annotations.push_back({{"image_id", 100 + i}, {"id", 10 + i}, {"caption", "another " + std::to_string(i)}});
  }
  const auto json = dir / "captions_val2014.json";
  write_text(json, nlohmann::json({{"images", images}, {"annotations", annotations}}).dump());
  auto all = read_coco_dataset(json, dir / "val2014");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].captions, (std::vector<std::string>{"a picture 2", "another 2"}));
  // No splits in a COCO file: its first val_size images validate, the rest train.
  auto val = open_dataset_split("coco:" + json, dir / "val2014", "val", cache_in(dir), 0, 1);
  auto train = open_dataset_split("coco:" + json, dir / "val2014", "train", cache_in(dir), 0, 1);
  EXPECT_EQ(val->size(), 1u);
  EXPECT_EQ(train->size(), 2u);
  EXPECT_EQ(val->get(0).id, 100);
  EXPECT_EQ(train->get(0).id, 101);
}

TEST(Datasets, ATinyModelTrainsOnAKarpathyDataset) {
  FOVEA_REQUIRE_IMAGE_IO();
  test::TempDir dir("karpathy-train");
  const auto json = make_karpathy(dir);
  auto config = test::tiny_training(dir / "run");
  config.dataset = "karpathy:" + json;
  config.images_dir = dir / "imgs";
  ::setenv("FOVEA_CACHE_DIR", (dir / "cache").c_str(), 1);
  config.batch_size = 2;
  config.max_steps = 200;
  auto r = train(config);
  EXPECT_EQ(r.steps, 200);
  const auto log = read_run_log(config.out_dir);
  ASSERT_FALSE(log.val.empty());
  EXPECT_FALSE(log.val.back().has_grounding);  // no object boxes in captioning datasets
  EXPECT_LT(log.train.back().nll, 0.5 * log.train.front().nll) << "it learned the four training captions";
  EXPECT_EQ(log.samples.size(), 3u);  // steps 0, 100, 200
  EXPECT_EQ(log.val.front().epoch, 1) << "epochs count from 1, as the console says";
  EXPECT_EQ(log.train.front().epoch, 1);
  // Captioned photos have no object boxes: the model file does not say boxes supervised α.
  const auto info = Captioner(r.best_checkpoint).info();
  EXPECT_FALSE(info.at("attention_supervised").get<bool>()) << info.dump();
  EXPECT_FALSE(info.at("auxiliary_heads_trained").get<bool>());
}

