#pragma once
/// Moving fashion scenes: short clips of the built-in scenes (fashion_scenes.h) whose items glide
/// across the canvas, each at its own constant speed in a random direction, bouncing off the
/// edges. Each frame comes with its objects' boxes and the reference captions of where they are
/// then; the clips test live captioning (does α follow what moves? does the caption hold still
/// while the objects stay the same?).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/image.h"
#include "core/datasets/fashion_scenes.h"

namespace fovea {

struct ClipOptions {
  int width = 448, height = 448;   ///< frame size; items are sized as in a scene of the shorter side
  double fps = 25;
  double seconds = 4;
  int min_objects = 1, max_objects = 3;
  double min_speed = 0.15, max_speed = 0.35;  ///< in shorter sides per second
  std::uint64_t seed = 1;
  std::string mnist_dir = fashion_mnist_dir();
};

/// One item of a clip: its picture (cut from its scene), where it starts and how it moves.
struct ClipItem {
  RgbImage sprite;            ///< the item's box in its scene; pixels at the background value are see-through
  SceneObject object;         ///< class and colour; the box of frame 0
  double x = 0, y = 0;        ///< top-left corner at time 0
  double vx = 0, vy = 0;      ///< pixels per second
};

struct Clip {
  std::int64_t id = 0;
  int width = 0, height = 0, scene_size = 0;
  double fps = 25;
  int frames = 0;
  std::uint8_t background = 0;
  std::vector<ClipItem> items;
};

/// One frame's annotations.
struct ClipFrameTruth {
  int index = 0;
  double time = 0;
  std::vector<SceneObject> objects;
  std::vector<std::string> captions;  ///< describe_objects() of the objects where they are now
};

class MovingScenes {
 public:
  /// split: train, val or test (the items of that split of fashion-scenes). Throws as FashionScenes
  /// does for bad sizes, std::invalid_argument for a bad frame rate, length or speed.
  MovingScenes(std::string split, std::size_t count, ClipOptions options = {});
  std::size_t size() const { return count_; }
  Clip clip(std::size_t index) const;
  const ClipOptions& options() const { return options_; }

 private:
  std::string split_;
  std::size_t count_;
  ClipOptions options_;
};

/// Frame `index` of a clip, and its annotations when `truth` is given.
RgbImage clip_frame(const Clip& clip, int index, ClipFrameTruth* truth = nullptr);

/// Writes the clip as `video_path` (its codec by extension, see core/data/video_io.h) and its
/// annotations as `json_path`: {"video","fps","width","height","frames":[{"index","time",
/// "objects":[{"noun","colour","class_id","box":[x0,y0,x1,y1]}],"captions":[...]}]}.
/// Returns the codec used. When either cannot be written, neither is left.
std::string write_clip(const Clip& clip, const std::string& video_path, const std::string& json_path);

/// The annotations of a clip file (write_clip's JSON). Throws std::runtime_error naming the file
/// when it is missing or not such a file.
struct ClipTruth {
  std::string video;  ///< the video's path (resolved beside the JSON file)
  double fps = 25;
  int width = 0, height = 0;
  std::vector<ClipFrameTruth> frames;
};
ClipTruth read_clip_truth(const std::string& json_path);

}  // namespace fovea
