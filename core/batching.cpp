#include "core/batching.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "core/image_tensor.h"
#include "core/tokenizer.h"

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

Batch make_batch(const SceneSource& source, const std::vector<std::size_t>& indices, const Vocabulary& vocab,
                 std::int64_t image_size, std::uint64_t seed, std::int64_t epoch, std::int64_t max_words) {
  std::vector<Scene> scenes;
  scenes.reserve(indices.size());
  std::vector<std::vector<std::int64_t>> encoded;
  for (auto i : indices) {
    scenes.push_back(source.get(i));
    const auto& caps = scenes.back().captions;
    std::mt19937_64 rng(seed ^ (std::uint64_t(epoch) << 40) ^ (std::uint64_t(i) * 0xD1B54A32D192ED03ULL));
    auto tokens = tokenize(caps.at(rng() % caps.size()));
    if (std::int64_t(tokens.size()) > max_words) tokens.resize(std::size_t(max_words));
    encoded.push_back(vocab.encode(tokens));
  }
  std::vector<const RgbImage*> images;
  for (const auto& s : scenes) images.push_back(&s.image);
  Batch b;
  b.images = images_to_tensor(images, image_size);
  std::tie(b.tokens, b.lengths) = pad_captions(encoded);
  b.indices = indices;
  return b;
}

}  // namespace fovea
