#pragma once
// A small captioned corpus on disk for tests: coloured squares in four places, as a Karpathy file.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/data/image_io.h"
#include "tests/test_support.h"

namespace fovea {

/// `count` 32x32 images of a coloured square in one of four places, in dir/imgs, and a Karpathy
/// file naming the colour and the place (the last four images: val).
inline std::string make_corpus(const test::TempDir& dir, int count) {
  std::filesystem::create_directories(dir.path / "imgs");
  const char* colours[] = {"red", "green", "blue"};
  const std::uint8_t rgb[3][3] = {{220, 30, 30}, {30, 200, 40}, {40, 50, 230}};
  const char* places[] = {"top left", "top right", "bottom left", "bottom right"};
  nlohmann::json images = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    const int colour = i % 3, place = (i / 3) % 4;
    RgbImage image(32, 32, 90);
    for (int y = 0; y < 16; ++y) {
      for (int x = 0; x < 16; ++x) std::copy(rgb[colour], rgb[colour] + 3, image.at(x + 16 * (place % 2), y + 16 * (place / 2)));
    }
    const std::string name = "im" + std::to_string(i) + ".png";
    write_png((dir.path / "imgs" / name).string(), image);
    const std::string caption = std::string("a ") + colours[colour] + " square at the " + places[place];
    images.push_back({{"filename", name}, {"imgid", i}, {"split", i < count - 4 ? "train" : "val"},
                      {"sentences", {{{"raw", caption}}, {{"raw", caption + " of the picture"}}}}});
  }
  const auto path = dir / "dataset_squares.json";
  std::ofstream(path) << nlohmann::json({{"images", images}}).dump();
  return path;
}

}  // namespace fovea
