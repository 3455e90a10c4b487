#pragma once
/// Plain image and scene value types shared by the data sources, the CLI and the GUI.
#include <cstdint>
#include <string>
#include <vector>

namespace fovea {

/// An 8-bit RGB image, rows top to bottom, pixels interleaved (HWC).
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  ///< width * height * 3 bytes

  RgbImage() = default;
  RgbImage(int w, int h, std::uint8_t fill = 0) : width(w), height(h), pixels(std::size_t(w) * h * 3, fill) {}
  std::uint8_t* at(int x, int y) { return pixels.data() + (std::size_t(y) * width + x) * 3; }
  const std::uint8_t* at(int x, int y) const { return pixels.data() + (std::size_t(y) * width + x) * 3; }
  bool empty() const { return pixels.empty(); }
};

/// One object placed in a scene, with its bounding box in pixels (x1, y1 exclusive).
struct SceneObject {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int class_id = 0;
  std::string noun;    ///< e.g. "sneaker"
  std::string colour;  ///< e.g. "red"
};

/// An image with its reference captions and, where known, its objects.
struct Scene {
  std::int64_t id = 0;
  RgbImage image;
  std::vector<std::string> captions;
  std::vector<SceneObject> objects;
};

}  // namespace fovea
