#include "core/datasets/moving_scenes.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/data/video_io.h"
#include "core/data/caption_dataset.h"
#include "core/datasets/seed_mix.h"
#include "core/io/atomic_file.h"
#include "core/io/json_file.h"

namespace fovea {

namespace {

/// Position along one axis at constant speed, reflected off both ends of [0, room].
double bounce(double start, double speed, double t, double room) {
  if (room <= 0) return 0;
  double u = std::fmod(start + speed * t, 2 * room);
  if (u < 0) u += 2 * room;
  return u <= room ? u : 2 * room - u;
}

FashionScenesOptions scene_options(const ClipOptions& o) {
  FashionScenesOptions f;
  f.image_size = std::min(o.width, o.height);
  f.min_objects = o.min_objects;
  f.max_objects = o.max_objects;
  f.seed = o.seed;
  f.mnist_dir = o.mnist_dir;
  return f;
}

nlohmann::json object_json(const SceneObject& o) {
  return {{"noun", o.noun}, {"colour", o.colour}, {"class_id", o.class_id}, {"box", {o.x0, o.y0, o.x1, o.y1}}};
}

}  // namespace

MovingScenes::MovingScenes(std::string split, std::size_t count, ClipOptions options)
    : split_(std::move(split)), count_(count), options_(std::move(options)) {
  const auto& o = options_;
  if (o.width < 32 || o.height < 32 || o.width % 2 || o.height % 2 || o.width > 4096 || o.height > 4096) {
    throw std::invalid_argument("moving scenes: frame sides must be even, 32 to 4096 pixels, got " + std::to_string(o.width) + "x" +
                                std::to_string(o.height));
  }
  if (!(o.fps >= 1 && o.fps <= 240)) throw std::invalid_argument("moving scenes: the frame rate must be 1 to 240");
  if (!(o.seconds > 0 && o.seconds <= 600)) throw std::invalid_argument("moving scenes: a clip lasts more than 0 and at most 600 seconds");
  if (!(o.min_speed >= 0 && o.max_speed >= o.min_speed && o.max_speed <= 10)) {
    throw std::invalid_argument("moving scenes: speeds must satisfy 0 <= min <= max <= 10 sides a second");
  }
  FashionScenes check(split_, 1, scene_options(o));  // its checks of sizes, objects and split
}

Clip MovingScenes::clip(std::size_t index) const {
  if (index >= count_) throw std::out_of_range("moving scenes: clip " + std::to_string(index) + " of " + std::to_string(count_));
  FashionScenes scenes(split_, count_, scene_options(options_));
  const Scene scene = scenes.get(index);
  Clip c;
  c.id = std::int64_t(index);
  c.width = options_.width, c.height = options_.height, c.fps = options_.fps;
  c.scene_size = scene.image.width;
  c.frames = std::max(1, int(std::lround(options_.seconds * options_.fps)));
  c.background = *std::min_element(scene.image.pixels.begin(), scene.image.pixels.end());
  std::mt19937_64 rng(splitmix64(splitmix64(options_.seed) ^ 0x6d6f76696e67ULL ^ index));
  const double pi = std::acos(-1.0);
  const int dx = (c.width - c.scene_size) / 2, dy = (c.height - c.scene_size) / 2;
  for (const auto& o : scene.objects) {
    ClipItem item;
    item.object = o;
    item.sprite = RgbImage(o.x1 - o.x0, o.y1 - o.y0);
    for (int y = o.y0; y < o.y1; ++y)
      std::copy_n(scene.image.at(o.x0, y), std::size_t(o.x1 - o.x0) * 3, item.sprite.at(0, y - o.y0));
    item.x = o.x0 + dx, item.y = o.y0 + dy;
    const double angle = std::uniform_real_distribution<double>(0, 2 * pi)(rng);
    const double speed = std::uniform_real_distribution<double>(options_.min_speed, options_.max_speed)(rng) * c.scene_size;
    item.vx = speed * std::cos(angle), item.vy = speed * std::sin(angle);
    c.items.push_back(std::move(item));
  }
  return c;
}

RgbImage clip_frame(const Clip& clip, int index, ClipFrameTruth* truth) {
  RgbImage frame(clip.width, clip.height, clip.background);
  const double t = index / clip.fps;
  std::vector<SceneObject> objects;
  for (const auto& item : clip.items) {
    const int w = item.sprite.width, h = item.sprite.height;
    const int x0 = int(std::lround(bounce(item.x, item.vx, t, clip.width - w)));
    const int y0 = int(std::lround(bounce(item.y, item.vy, t, clip.height - h)));
    for (int y = 0; y < h; ++y) {
      const std::uint8_t* s = item.sprite.at(0, y);
      std::uint8_t* d = frame.at(x0, y0 + y);
      for (int k = 0; k < w * 3; ++k) d[k] = std::max(d[k], s[k]);  // as scenes tint: the brighter wins
    }
    SceneObject o = item.object;
    o.x0 = x0, o.y0 = y0, o.x1 = x0 + w, o.y1 = y0 + h;
    objects.push_back(o);
  }
  if (truth) {
    truth->index = index;
    truth->time = t;
    // Captions say where things are on a square scene: positions scaled onto one.
    std::vector<SceneObject> square = objects;
    for (auto& o : square) {
      o.x0 = o.x0 * clip.scene_size / clip.width, o.x1 = o.x1 * clip.scene_size / clip.width;
      o.y0 = o.y0 * clip.scene_size / clip.height, o.y1 = o.y1 * clip.scene_size / clip.height;
    }
    truth->captions = describe_objects(square, clip.scene_size);
    truth->objects = std::move(objects);
  }
  return frame;
}

std::string write_clip(const Clip& clip, const std::string& video_path, const std::string& json_path) {
  VideoWriter writer(video_path, clip.width, clip.height, clip.fps);
  nlohmann::json frames = nlohmann::json::array();
  for (int i = 0; i < clip.frames; ++i) {
    ClipFrameTruth truth;
    writer.write(clip_frame(clip, i, &truth));
    nlohmann::json objects = nlohmann::json::array();
    for (const auto& o : truth.objects) objects.push_back(object_json(o));
    frames.push_back({{"index", i}, {"time", truth.time}, {"objects", objects}, {"captions", truth.captions}});
  }
  writer.close();
  const nlohmann::json j = {{"video", std::filesystem::path(video_path).filename().string()},
                            {"fps", clip.fps},
                            {"width", clip.width},
                            {"height", clip.height},
                            {"codec", writer.codec()},
                            {"frames", frames}};
  try {
    write_file_atomically(json_path, j.dump() + "\n");
  } catch (...) {  // a clip without its annotations is no clip of the dataset: none is left
    std::error_code ec;
    std::filesystem::remove(video_path, ec);
    throw;
  }
  return writer.codec();
}

namespace {

/// The number `j` holds, as a finite double; throws saying what it holds instead.
double finite_number(const nlohmann::json& j) {
  if (!j.is_number()) throw std::runtime_error(std::string("expected a number, not ") + j.type_name());
  const double v = j.get<double>();
  if (!std::isfinite(v)) throw std::runtime_error("expected a finite number");
  return v;
}

/// `j` as an int; throws unless it is a whole number within int's range.
int whole_number(const nlohmann::json& j) {
  const double v = finite_number(j);
  if (v != std::floor(v) || std::abs(v) > 1e9) throw std::runtime_error("expected a whole number, not " + j.dump());
  return int(v);
}

std::string text(const nlohmann::json& j) {
  if (!j.is_string()) throw std::runtime_error(std::string("expected text, not ") + j.type_name());
  return j.get<std::string>();
}

/// `key` of the object `j`; throws naming the key when it is missing.
const nlohmann::json& field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) throw std::runtime_error(std::string("expected an object {...}, not ") + j.type_name());
  if (!j.contains(key)) throw std::runtime_error(std::string("no \"") + key + "\"");
  return j[key];
}

const nlohmann::json& list(const nlohmann::json& j) {
  if (!j.is_array()) throw std::runtime_error(std::string("expected a list [...], not ") + j.type_name());
  return j;
}

SceneObject clip_object(const nlohmann::json& o, int width, int height, std::string& where) {
  SceneObject so;
  const std::string at = where;
  where = at + ".noun", so.noun = text(field(o, "noun"));
  where = at + ".colour", so.colour = text(field(o, "colour"));
  where = at + ".class_id", so.class_id = whole_number(field(o, "class_id"));
  where = at + ".box";
  const auto& box = list(field(o, "box"));
  if (box.size() != 4) throw std::runtime_error("a box is [x0, y0, x1, y1], not " + std::to_string(box.size()) + " numbers");
  so.x0 = whole_number(box[0]), so.y0 = whole_number(box[1]), so.x1 = whole_number(box[2]), so.y1 = whole_number(box[3]);
  if (so.x1 <= so.x0 || so.y1 <= so.y0) {
    throw std::runtime_error(box.dump() + " is inverted or empty (a box is [x0, y0, x1, y1] with x0 < x1 and y0 < y1)");
  }
  if (so.x0 < 0 || so.y0 < 0 || so.x1 > width || so.y1 > height) {
    throw std::runtime_error(box.dump() + " reaches outside the " + std::to_string(width) + "x" + std::to_string(height) + " frame");
  }
  return so;
}

}  // namespace

ClipTruth read_clip_truth(const std::string& json_path) {
  const auto j = read_json_file(json_path);  // missing, a folder, unreadable, not JSON: named
  ClipTruth t;
  std::string where = "the file";
  try {
    field(j, "video");
    where = "\"video\"";
    const std::string video = text(j["video"]);
    if (!stays_inside_folder(video)) {
      throw std::runtime_error("\"" + video + "\" lies outside the clip's folder; the video must be named by a path inside it");
    }
    t.video = (std::filesystem::path(json_path).parent_path() / video).string();
    where = "\"fps\"", t.fps = finite_number(field(j, "fps"));
    if (!(t.fps > 0 && t.fps <= 1000)) throw std::runtime_error("a frame rate of " + field(j, "fps").dump() + " (expected more than 0, at most 1000)");
    where = "\"width\"", t.width = whole_number(field(j, "width"));
    where = "\"height\"", t.height = whole_number(field(j, "height"));
    where = "\"width\" and \"height\"";
    if (t.width < 1 || t.height < 1) throw std::runtime_error("a frame of " + std::to_string(t.width) + "x" + std::to_string(t.height) + " pixels");
    where = "\"frames\"";
    const auto& frames = list(field(j, "frames"));
    if (frames.empty()) throw std::runtime_error("no frames described");
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const auto& f = frames[i];
      const std::string at = "frames[" + std::to_string(i) + "]";
      ClipFrameTruth ft;
      where = at + ".index", ft.index = whole_number(field(f, "index"));
      where = at + ".time", ft.time = finite_number(field(f, "time"));
      where = at + ".captions";
      for (const auto& c : list(field(f, "captions"))) ft.captions.push_back(text(c));
      if (ft.captions.empty()) throw std::runtime_error("no reference captions (the list is empty)");
      const auto& objects = list(field(f, "objects"));
      for (std::size_t k = 0; k < objects.size(); ++k) {
        where = at + ".objects[" + std::to_string(k) + "]";
        ft.objects.push_back(clip_object(objects[k], t.width, t.height, where));
      }
      t.frames.push_back(std::move(ft));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(json_path + ": not a clip annotation file (" + where + ": " + json_error_text(e) + ")");
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(json_path + ": not a clip annotation file (" + where + ": " + e.what() + ")");
  }
  return t;
}

}  // namespace fovea
