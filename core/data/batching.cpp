#include "core/data/batching.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "core/data/image_tensor.h"
#include "core/data/tokenizer.h"

namespace fovea {

std::vector<std::size_t> epoch_order(std::size_t n, std::uint64_t seed, std::int64_t epoch) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + std::uint64_t(epoch) + 1);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

std::pair<torch::Tensor, torch::Tensor> pad_captions(const std::vector<std::vector<std::int64_t>>& encoded) {
  std::int64_t longest = 0;
  for (const auto& e : encoded) longest = std::max<std::int64_t>(longest, std::int64_t(e.size()));
  auto tokens = torch::full({std::int64_t(encoded.size()), longest}, Vocabulary::kPad, torch::kLong);
  auto lengths = torch::empty({std::int64_t(encoded.size())}, torch::kLong);
  auto acc = tokens.accessor<std::int64_t, 2>();
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    for (std::size_t t = 0; t < encoded[i].size(); ++t) acc[long(i)][long(t)] = encoded[i][t];
    lengths[long(i)] = std::int64_t(encoded[i].size()) - 1;
  }
  return {tokens, lengths};
}

std::vector<std::int64_t> cells_in_box(int x0, int y0, int x1, int y1, int width, int height, std::int64_t gh,
                                       std::int64_t gw) {
  const double cw = double(width) / double(gw), ch = double(height) / double(gh);
  std::vector<std::int64_t> cells;
  for (std::int64_t r = 0; r < gh; ++r) {
    for (std::int64_t c = 0; c < gw; ++c) {
      const double cx = (double(c) + 0.5) * cw, cy = (double(r) + 0.5) * ch;
      if (cx >= x0 && cx < x1 && cy >= y0 && cy < y1) cells.push_back(r * gw + c);
    }
  }
  if (cells.empty()) {
    const auto r = std::clamp<std::int64_t>(std::int64_t((y0 + y1) * 0.5 / ch), 0, gh - 1);
    const auto c = std::clamp<std::int64_t>(std::int64_t((x0 + x1) * 0.5 / cw), 0, gw - 1);
    cells.push_back(r * gw + c);
  }
  return cells;
}

bool cell_labels(const Scene& scene, std::int64_t gh, std::int64_t gw, const std::vector<std::string>& palette,
                 std::int64_t* classes, std::int64_t* colours) {
  std::fill(classes, classes + gh * gw, 0);
  std::fill(colours, colours + gh * gw, 0);
  if (scene.objects.empty()) return false;
  for (const auto& o : scene.objects) {
    std::int64_t colour = 0;
    for (std::size_t k = 0; k < palette.size(); ++k) {
      if (palette[k] == o.colour) colour = std::int64_t(k) + 1;
    }
    for (const auto cell : cells_in_box(o.x0, o.y0, o.x1, o.y1, scene.image.width, scene.image.height, gh, gw)) {
      classes[cell] = o.class_id + 1;
      colours[cell] = colour;
    }
  }
  return true;
}

Batch make_batch(const SceneSource& source, const std::vector<std::size_t>& indices, const Vocabulary& vocab,
                 std::int64_t image_size, std::uint64_t seed, std::int64_t epoch, std::int64_t max_words,
                 std::int64_t grid_h, std::int64_t grid_w, bool word_boxes, bool keep_scenes) {
  std::vector<Scene> scenes;
  scenes.reserve(indices.size());
  std::vector<std::vector<std::int64_t>> encoded;
  std::vector<std::vector<std::string>> words;
  for (auto i : indices) {
    scenes.push_back(source.get(i));
    const auto& caps = scenes.back().captions;
    std::mt19937_64 rng(seed ^ (std::uint64_t(epoch) << 40) ^ (std::uint64_t(i) * 0xD1B54A32D192ED03ULL));
    auto tokens = tokenize(caps.at(rng() % caps.size()));
    if (std::int64_t(tokens.size()) > max_words) tokens.resize(std::size_t(max_words));
    encoded.push_back(vocab.encode(tokens));
    words.push_back(std::move(tokens));
  }
  std::vector<const RgbImage*> images;
  for (const auto& s : scenes) images.push_back(&s.image);
  Batch b;
  if (image_size > 0) b.images = images_to_tensor(images, image_size);
  std::tie(b.tokens, b.lengths) = pad_captions(encoded);
  b.indices = indices;
  if (grid_h > 0 && grid_w > 0) {
    const auto B = std::int64_t(scenes.size());
    b.cell_class = torch::zeros({B, grid_h * grid_w}, torch::kLong);
    b.cell_colour = torch::zeros({B, grid_h * grid_w}, torch::kLong);
    b.has_cell_labels = true;
    const auto palette = source.colour_names();
    for (std::int64_t i = 0; i < B; ++i) {
      b.has_cell_labels &= cell_labels(scenes[std::size_t(i)], grid_h, grid_w, palette, b.cell_class[i].data_ptr<std::int64_t>(),
                                       b.cell_colour[i].data_ptr<std::int64_t>());
    }
  }
  if (word_boxes && grid_h > 0 && grid_w > 0) {
    std::vector<const Scene*> of;
    for (const auto& s : scenes) of.push_back(&s);
    std::tie(b.word_boxes, b.word_has_box) = word_box_targets(of, words, b.tokens.size(1) - 1, grid_h, grid_w);
  }
  if (keep_scenes) {
    for (auto& s : scenes) s.image.pixels = {};  // the size stays: boxes are placed on it
    b.scenes = std::move(scenes);
  }
  return b;
}

std::pair<torch::Tensor, torch::Tensor> word_box_targets(const std::vector<const Scene*>& scenes,
                                                         const std::vector<std::vector<std::string>>& words, std::int64_t T,
                                                         std::int64_t grid_h, std::int64_t grid_w) {
  const auto B = std::int64_t(scenes.size());
  const auto L = grid_h * grid_w;
  auto word_boxes = torch::zeros({B, T, L}, torch::kFloat);
  auto word_has_box = torch::zeros({B, T}, torch::kBool);
  auto boxes = word_boxes.accessor<float, 3>();
  auto has = word_has_box.accessor<bool, 2>();
  for (std::int64_t i = 0; i < B; ++i) {
    const Scene& s = *scenes[std::size_t(i)];
    const auto named = named_objects(s, words[std::size_t(i)]);
    for (std::size_t t = 0; t < named.size() && std::int64_t(t) < T; ++t) {
      if (named[t] < 0) continue;
      const auto cells = object_cells(s.objects[std::size_t(named[t])], s.image.width, s.image.height, int(grid_h), int(grid_w));
      has[i][std::int64_t(t)] = true;
      for (std::int64_t l = 0; l < L; ++l) boxes[i][std::int64_t(t)][l] = cells[std::size_t(l)] ? 1.0f : 0.0f;
    }
  }
  return {word_boxes, word_has_box};
}

std::vector<int> named_objects(const Scene& scene, const std::vector<std::string>& words) {
  std::vector<int> out(words.size(), -1);
  for (std::size_t t = 0; t + 1 < words.size(); ++t) {
    for (std::size_t k = 0; k < scene.objects.size(); ++k) {
      const auto& o = scene.objects[k];
      if (words[t] == o.colour && words[t + 1] == o.noun) {
        out[t] = out[t + 1] = int(k);
        break;
      }
    }
  }
  return out;
}

std::vector<bool> object_cells(const SceneObject& o, int image_width, int image_height, int grid_h, int grid_w) {
  const double cw = double(image_width) / grid_w, ch = double(image_height) / grid_h;
  std::vector<bool> in(std::size_t(grid_h) * grid_w);
  for (int r = 0; r < grid_h; ++r) {
    for (int c = 0; c < grid_w; ++c) {
      const double cx = (c + 0.5) * cw, cy = (r + 0.5) * ch;
      in[std::size_t(r) * grid_w + c] = cx > o.x0 - cw / 2 && cx < o.x1 + cw / 2 && cy > o.y0 - ch / 2 && cy < o.y1 + ch / 2;
    }
  }
  return in;
}

}  // namespace fovea
