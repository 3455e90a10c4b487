#include "core/datasets/fashion_scenes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>

#include "core/data/image_tensor.h"
#include "core/datasets/seed_mix.h"

namespace fovea {

const std::vector<NamedColour>& scene_colours() {
  static const std::vector<NamedColour> colours = {
      {"red", 225, 40, 40},     {"green", 40, 185, 60},   {"blue", 50, 100, 240},  {"yellow", 235, 220, 40},
      {"orange", 245, 135, 20}, {"purple", 155, 60, 210}, {"pink", 250, 125, 195}, {"white", 240, 240, 240}};
  return colours;
}

namespace {

std::uint64_t split_code(const std::string& split) {
  if (split == "train") return 1;
  if (split == "val") return 2;
  if (split == "test") return 3;
  throw std::invalid_argument("fashion-scenes split must be train, val or test, got '" + split + "'");
}

/// Loads each Fashion-MNIST split once per process and shares it between sources.
std::shared_ptr<const FashionMnist> shared_items(const std::string& mnist_split, const std::string& dir) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const FashionMnist>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[dir + "|" + mnist_split];
  if (!slot) slot = std::make_shared<const FashionMnist>(load_fashion_mnist_split(mnist_split, dir));
  return slot;
}

/// A 28x28 grayscale item at size x size, values in [0, 1] (the shared image resize).
std::vector<float> resize_item(const std::uint8_t* src, int rows, int cols, int size) {
  torch::NoGradGuard no_grad;
  const auto item = torch::from_blob(const_cast<std::uint8_t*>(src), {1, 1, rows, cols}, torch::kUInt8).to(torch::kFloat32).div(255.0);
  const auto resized = resize_images(item, size, size).contiguous();
  const float* p = resized.data_ptr<float>();
  return std::vector<float>(p, p + std::size_t(size) * size);
}

std::string where_in_image(const SceneObject& o, int image_size) {
  const float cx = (o.x0 + o.x1) * 0.5f / image_size, cy = (o.y0 + o.y1) * 0.5f / image_size;
  const char* v = cy < 0.38f ? "top" : (cy > 0.62f ? "bottom" : "");
  const char* h = cx < 0.38f ? "left" : (cx > 0.62f ? "right" : "");
  std::string s = v;
  if (*h) s += (s.empty() ? "" : " ") + std::string(h);
  return s.empty() ? "center" : s;
}

std::string phrase(const SceneObject& o) { return o.colour + " " + o.noun; }

/// Paints an item's `size` x `size` intensities (`mirrored`: flipped left to right) at (px, py) in
/// `colour`, brighter over darker, and sets the object's box to where it shows (the whole square
/// when it barely does).
void paint_item(RgbImage& image, const std::vector<float>& pixels, int size, int px, int py, bool mirrored,
                const NamedColour& colour, SceneObject& obj) {
  obj.x0 = image.width, obj.y0 = image.height, obj.x1 = 0, obj.y1 = 0;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const float v = pixels[std::size_t(y) * size + (mirrored ? size - 1 - x : x)];
      if (v <= 0.02f) continue;
      std::uint8_t* p = image.at(px + x, py + y);
      p[0] = std::uint8_t(std::max<float>(p[0], v * colour.r));
      p[1] = std::uint8_t(std::max<float>(p[1], v * colour.g));
      p[2] = std::uint8_t(std::max<float>(p[2], v * colour.b));
      if (v > 0.1f) {
        obj.x0 = std::min(obj.x0, px + x), obj.y0 = std::min(obj.y0, py + y);
        obj.x1 = std::max(obj.x1, px + x + 1), obj.y1 = std::max(obj.y1, py + y + 1);
      }
    }
  }
  if (obj.x1 <= obj.x0) obj.x0 = px, obj.y0 = py, obj.x1 = px + size, obj.y1 = py + size;
}

}  // namespace

std::vector<std::string> describe_objects(const std::vector<SceneObject>& objects, int image_size) {
  std::vector<SceneObject> objs = objects;
  std::sort(objs.begin(), objs.end(), [](const SceneObject& a, const SceneObject& b) { return a.x0 + a.x1 < b.x0 + b.x1; });
  std::vector<std::string> caps;
  if (objs.size() == 1) {
    const auto p = phrase(objs[0]);
    const auto w = where_in_image(objs[0], image_size);
    caps = {"a " + p,
            "a " + p + " in the " + w,
            "there is a " + p + " in the " + w + " of the picture",
            "a single " + p + " on a dark background",
            "a picture of a " + p};
  } else if (objs.size() == 2) {
    const auto& a = objs[0];
    const auto& b = objs[1];
    const float dx = (b.x0 + b.x1 - a.x0 - a.x1) * 0.5f;
    const float dy = (b.y0 + b.y1 - a.y0 - a.y1) * 0.5f;
    std::string relation, inverse;
    if (std::abs(dx) >= std::abs(dy)) {
      relation = "a " + phrase(a) + " to the left of a " + phrase(b);
      inverse = "a " + phrase(b) + " to the right of a " + phrase(a);
    } else {
      const auto& top = dy > 0 ? a : b;
      const auto& bottom = dy > 0 ? b : a;
      relation = "a " + phrase(top) + " above a " + phrase(bottom);
      inverse = "a " + phrase(bottom) + " below a " + phrase(top);
    }
    caps = {"a " + phrase(a) + " and a " + phrase(b), relation, inverse,
            "two items : a " + phrase(a) + " and a " + phrase(b),
            "a " + phrase(a) + " next to a " + phrase(b)};
  } else {
    std::string list;
    for (std::size_t i = 0; i < objs.size(); ++i) {
      if (i > 0) list += (i + 1 == objs.size()) ? " and " : " , ";
      list += "a " + phrase(objs[i]);
    }
    const std::string number = objs.size() == 3 ? "three" : "four";
    std::string rest;
    for (std::size_t i = 1; i < objs.size(); ++i) {
      rest += (i == 1 ? "" : (i + 1 == objs.size() ? " and " : " , ")) + std::string("a ") + phrase(objs[i]);
    }
    caps = {list, number + " items : " + list, list + " from left to right",
            "a " + phrase(objs[0]) + " to the left of " + rest, number + " fashion items : " + list};
  }
  return caps;
}

FashionScenesOptions with_item_sizes(FashionScenesOptions o) {
  if (o.min_item_size == 0) o.min_item_size = (o.image_size * 30 + 56) / 112;
  if (o.max_item_size == 0) o.max_item_size = (o.image_size * 44 + 56) / 112;
  return o;
}

std::vector<std::string> scene_colour_names() {
  std::vector<std::string> names;
  for (const auto& c : scene_colours()) names.push_back(c.name);
  return names;
}

FashionScenes::FashionScenes(std::string split, std::size_t count, FashionScenesOptions options)
    : FashionScenes(split, count, shared_items(split == "train" ? "train" : "test", options.mnist_dir), options) {}

FashionScenes::FashionScenes(std::string split, std::size_t count, std::shared_ptr<const FashionMnist> items,
                             FashionScenesOptions options)
    : split_(std::move(split)), count_(count), options_(std::move(options)), items_(std::move(items)) {
  split_code(split_);
  const bool derived_sizes = options_.min_item_size == 0 && options_.max_item_size == 0;
  options_ = with_item_sizes(options_);
  if (!items_ || items_->size() == 0) throw std::invalid_argument("fashion-scenes: no Fashion-MNIST items");
  if (options_.min_objects < 1 || options_.max_objects < options_.min_objects || options_.max_objects > 4) {
    throw std::invalid_argument("fashion-scenes: objects per scene must satisfy 1 <= min <= max <= 4");
  }
  // Several objects need room beside each other; a canvas of one item may be just its size.
  const int largest = options_.max_objects == 1 ? options_.image_size : options_.image_size / 2;
  if (options_.max_item_size > largest || options_.min_item_size < 8 || options_.min_item_size > options_.max_item_size) {
    if (derived_sizes) {  // the item sizes follow the image size: say which image sizes work
      int smallest = 8;
      for (auto o = options_; smallest <= 4096; smallest += 8) {
        o.image_size = smallest, o.min_item_size = o.max_item_size = 0;
        o = with_item_sizes(o);
        if (o.min_item_size >= 8 && o.max_item_size <= (o.max_objects == 1 ? smallest : smallest / 2)) break;
      }
      throw std::invalid_argument("fashion-scenes: an image size of " + std::to_string(options_.image_size) +
                                  " pixels is too small for the built-in scenes (their items need at least 8 pixels): "
                                  "the image size must be at least " + std::to_string(smallest));
    }
    throw std::invalid_argument(options_.max_objects == 1
                                    ? "fashion-scenes: item size range must satisfy 8 <= min <= max <= image_size"
                                    : "fashion-scenes: item size range must satisfy 8 <= min <= max <= image_size/2");
  }
  const std::size_t n = items_->size();
  if (split_ == "val") {
    item_begin_ = 0, item_end_ = std::max<std::size_t>(1, n / 2);
  } else if (split_ == "test") {
    item_begin_ = n / 2, item_end_ = n;
  } else {
    item_begin_ = 0, item_end_ = n;
  }
}

std::string FashionScenes::describe() const {
  return "fashion-scenes/" + split_ + " (" + std::to_string(count_) + " scenes, " +
         std::to_string(options_.image_size) + "px, " + std::to_string(options_.min_objects) + "-" +
         std::to_string(options_.max_objects) + " objects, seed " + std::to_string(options_.seed) +
         (mirrors_items() ? ", items mirrored at random" : "") + ")";
}

Scene FashionScenes::get(std::size_t index) const {
  if (index >= count_) {
    throw std::out_of_range("fashion-scenes/" + split_ + ": index " + std::to_string(index) + " >= " +
                            std::to_string(count_));
  }
  const std::uint64_t scene_seed = splitmix64(splitmix64(options_.seed) ^ (split_code(split_) << 56) ^ index);
  std::mt19937_64 rng(scene_seed);
  // Its own generator, so that mirroring leaves every other draw of the scene as it was.
  std::mt19937_64 mirror_rng(splitmix64(scene_seed ^ 0x6d6972726f72ULL));
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };

  const int S = options_.image_size;
  Scene scene;
  scene.id = std::int64_t(index);
  scene.image = RgbImage(S, S, 0);
  const std::uint8_t bg = std::uint8_t(uniform(8, 28));
  std::fill(scene.image.pixels.begin(), scene.image.pixels.end(), bg);

  const int wanted = uniform(options_.min_objects, options_.max_objects);
  const auto& colours = scene_colours();
  std::vector<int> class_ids(10), colour_ids(colours.size());
  for (int i = 0; i < 10; ++i) class_ids[i] = i;
  for (std::size_t i = 0; i < colours.size(); ++i) colour_ids[i] = int(i);
  std::shuffle(class_ids.begin(), class_ids.end(), rng);
  std::shuffle(colour_ids.begin(), colour_ids.end(), rng);

  // An item of the class in this split's range: a random index probed forward to the class.
  auto pick_item = [&](int class_id) -> std::size_t {
    const std::size_t span = item_end_ - item_begin_;
    std::size_t i = item_begin_ + std::uniform_int_distribution<std::size_t>(0, span - 1)(rng);
    for (std::size_t k = 0; k < span; ++k) {
      const std::size_t j = item_begin_ + (i - item_begin_ + k) % span;
      if (items_->labels[j] == class_id) return j;
    }
    return i;  // class absent from this range (only with tiny synthetic item sets)
  };

  std::vector<std::array<int, 4>> placed;  // padded outer squares, to keep objects apart
  for (int n = 0; n < wanted; ++n) {
    const int size = uniform(options_.min_item_size, options_.max_item_size);
    bool ok = false;
    int px = 0, py = 0;
    for (int attempt = 0; attempt < 100 && !ok; ++attempt) {
      px = uniform(0, S - size);
      py = uniform(0, S - size);
      ok = true;
      for (const auto& r : placed) {
        if (px < r[2] && r[0] < px + size && py < r[3] && r[1] < py + size) ok = false;
      }
    }
    if (!ok) break;  // canvas full: fewer objects than drawn
    placed.push_back({px, py, px + size, py + size});

    const std::size_t item = pick_item(class_ids[n]);
    const int class_id = items_->labels[item];
    const auto& colour = colours[colour_ids[n]];
    auto pixels = resize_item(items_->item(item), items_->rows, items_->cols, size);
    const bool mirrored = mirrors_items() && (mirror_rng() & 1u) != 0;
    SceneObject obj;
    obj.class_id = class_id;
    obj.noun = fashion_class_nouns()[class_id];
    obj.colour = colour.name;
    paint_item(scene.image, pixels, size, px, py, mirrored, colour, obj);
    scene.objects.push_back(obj);
  }
  scene.captions = describe_objects(scene.objects, S);
  return scene;
}

}  // namespace fovea
