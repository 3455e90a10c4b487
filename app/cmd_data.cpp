// fovea data fashion-scenes: writes scenes as PNG files plus a captions file.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "core/data/image_io.h"
#include "core/datasets/fashion_scenes.h"
#include "core/io/atomic_file.h"

namespace fovea::cli {

namespace {
struct DataArgs {
  std::string dataset = "fashion-scenes", split = "test", out;
  std::size_t count = 16, start = 0, split_size = 1000;
  FashionScenesOptions scenes;
};
}  // namespace

Runner add_data_command(CLI::App& app) {
  auto a = std::make_shared<DataArgs>();
  app.add_option("dataset", a->dataset, "Dataset name")->check(CLI::IsMember({"fashion-scenes"}))->required();
  app.add_option("--split", a->split, "train, val or test")->check(CLI::IsMember({"train", "val", "test"}))->capture_default_str();
  app.add_option("--out", a->out, "Output folder")->required();
  app.add_option("--count", a->count, "Number of scenes to write")->capture_default_str();
  app.add_option("--start", a->start, "Index of the first scene")->capture_default_str();
  app.add_option("--data-seed", a->scenes.seed, "Seed of the built-in scenes (training uses 1)")->capture_default_str();
  app.add_option("--image-size", a->scenes.image_size, "Canvas side in pixels")->capture_default_str();
  return [a]() -> int {
    namespace fs = std::filesystem;
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
