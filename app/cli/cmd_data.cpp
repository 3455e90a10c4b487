// fovea data fashion-scenes: writes scenes as PNG files plus a captions file, or a whole
// dataset in Karpathy's format (JPEG files and dataset.json) for training from disk.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/option_checks.h"
#include "app/cli/video_commands.h"
#include "core/data/image_io.h"
#include "core/data/tokenizer.h"
#include "core/datasets/fashion_scenes.h"
#include "core/io/atomic_file.h"

namespace fovea::cli {

namespace {
struct DataArgs {
  std::string dataset = "fashion-scenes", split = "test", out, format = "png";
  std::size_t count = 16, start = 0, split_size = 1000;
  FashionScenesOptions scenes;
  bool video = false;
  ClipOptions clip;
  std::string frame_size = "448x448", video_format = "mp4";
};

/// Karpathy's split file format (dataset_flickr8k.json): `count` scenes, an eighth each for val
/// and test (1000 of 8000, as Flickr8k), the rest train, each split drawn from the built-in split
/// of its name; JPEG images beside dataset.json.
int write_karpathy(const DataArgs& a) {
  namespace fs = std::filesystem;
  fs::create_directories(a.out);
  if (a.count < 3) throw std::invalid_argument("--count must be at least 3 for a Karpathy dataset (train, val, test)");
  const std::size_t held_out = std::max<std::size_t>(1, a.count / 8);
  const std::vector<std::pair<std::string, std::size_t>> splits{
      {"train", a.count - 2 * held_out}, {"val", held_out}, {"test", held_out}};
  nlohmann::json images = nlohmann::json::array();
  std::size_t sentid = 0;
  for (const auto& [split, n] : splits) {
    FashionScenes scenes(split, n, a.scenes);
    for (std::size_t i = 0; i < n; ++i) {
      const auto scene = scenes.get(i);
      char name[64];
      std::snprintf(name, sizeof name, "%s_%05zu.jpg", split.c_str(), i);
      write_jpeg((fs::path(a.out) / name).string(), scene.image);
      const auto imgid = images.size();
      nlohmann::json sentences = nlohmann::json::array(), sentids = nlohmann::json::array();
      for (const auto& c : scene.captions) {
        sentences.push_back({{"raw", c}, {"tokens", tokenize(c)}, {"imgid", imgid}, {"sentid", sentid}});
        sentids.push_back(sentid++);
      }
      images.push_back({{"filepath", ""}, {"filename", name}, {"imgid", imgid}, {"split", split},
                        {"sentences", sentences}, {"sentids", sentids}});
    }
    std::cout << "wrote " << n << " " << split << (n == 1 ? " image\n" : " images\n");
  }
  write_file_atomically((fs::path(a.out) / "dataset.json").string(),
                        nlohmann::json({{"dataset", "fashion-scenes"}, {"images", images}}).dump() + "\n");
  std::cout << "wrote " << a.count << " images and dataset.json to " << a.out << " (train with --dataset karpathy:"
            << (fs::path(a.out) / "dataset.json").string() << " --images " << a.out << ")\n";
  return 0;
}

}  // namespace

Runner add_data_command(CLI::App& app) {
  auto a = std::make_shared<DataArgs>();
  app.add_option("dataset", a->dataset, "Dataset name")->check(CLI::IsMember({"fashion-scenes"}))->required();
  app.add_option("--split", a->split, "train, val or test")->check(CLI::IsMember({"train", "val", "test"}))->capture_default_str();
  app.add_option("--out", a->out, "Output folder")->required();
  app.add_option("--count", a->count, "Number of scenes to write")->check(at_least(1))->capture_default_str();
  app.add_option("--start", a->start, "Index of the first scene")->check(at_least(0))->capture_default_str();
  app.add_option("--data-seed", a->scenes.seed, "Seed of the built-in scenes (training uses 1)")
      ->check(at_least(0))
      ->capture_default_str();
  // From 32 pixels the smallest item (30/112 of the canvas) is at least 8 pixels wide.
  app.add_option("--image-size", a->scenes.image_size, "Canvas side in pixels")
      ->check(CLI::Range(32, 1024))
      ->capture_default_str();
  app.add_option("--format", a->format,
                 "png: PNG files and captions.json (with boxes); karpathy: a dataset to train from disk, JPEG files "
                 "and Karpathy's dataset.json, --count images split 6:1:1 into train, val and test")
      ->check(CLI::IsMember({"png", "karpathy"}))
      ->capture_default_str();
  app.add_flag("--video", a->video, "Write clips instead: the items move at constant speed in random directions; "
                                    "a video and a JSON file of each frame's boxes and captions per clip");
  app.add_option("--seconds", a->clip.seconds, "--video: length of a clip")->check(CLI::Range(0.04, 600.0))->capture_default_str();
  app.add_option("--fps", a->clip.fps, "--video: frames a second")->check(CLI::Range(1.0, 240.0))->capture_default_str();
  app.add_option("--frame-size", a->frame_size, "--video: WIDTHxHEIGHT, even sides")->capture_default_str();
  app.add_option("--video-format", a->video_format, "--video: mp4 (H.264), avi (Motion JPEG), mkv (FFV1) or webm (VP8)")
      ->check(CLI::IsMember({"mp4", "avi", "mkv", "webm"}))
      ->capture_default_str();
  return [a]() -> int {
    namespace fs = std::filesystem;
    if (a->video) {
      a->clip.seed = a->scenes.seed;
      parse_frame_size(a->frame_size, a->clip.width, a->clip.height, "--frame-size");
      return write_video_clips(a->out, a->split, a->start, a->count, a->clip, a->video_format);
    }
    if (a->format == "karpathy") return write_karpathy(*a);
    FashionScenes scenes(a->split, a->start + a->count, a->scenes);
    fs::create_directories(a->out);
    nlohmann::json index = nlohmann::json::array();
    for (std::size_t i = a->start; i < a->start + a->count; ++i) {
      const auto scene = scenes.get(i);
      char name[64];
      std::snprintf(name, sizeof name, "%s_%05zu.png", a->split.c_str(), i);
      write_png((fs::path(a->out) / name).string(), scene.image);
      nlohmann::json objects = nlohmann::json::array();
      for (const auto& o : scene.objects) {
        objects.push_back({{"noun", o.noun}, {"colour", o.colour}, {"class_id", o.class_id}, {"box", {o.x0, o.y0, o.x1, o.y1}}});
      }
      index.push_back({{"file", name}, {"id", scene.id}, {"captions", scene.captions}, {"objects", objects}});
    }
    write_file_atomically((fs::path(a->out) / "captions.json").string(), index.dump(1) + "\n");
    std::cout << "wrote " << a->count << " scenes and captions.json to " << a->out << "\n";
    return 0;
  };
}

}  // namespace fovea::cli
