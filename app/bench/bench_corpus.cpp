// fovea bench --case corpus_epoch: training on a Flickr8k-sized corpus from cached annotations
// (core/data/annotation_cache.h), and, with --backbone, what the cache costs to build against
// the backbone's forward pass alone.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <unistd.h>

#include "app/bench/bench_cases.h"
#include "core/data/annotation_cache.h"
#include "core/data/batching.h"
#include "core/data/image_tensor.h"
#include "core/model/show_attend_tell.h"
#include "core/train/annotation_features.h"
#include "core/train/decoder_pass.h"
#include "core/train/fused_adam.h"

namespace fovea::cli {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

/// Flickr8k as Karpathy's split gives it: 6000 training images with 5 captions each, 2538 words
/// at min count 5; VGG16's conv5 annotations at 224 px.
constexpr std::int64_t kImages = 6000, kCaptionsPerImage = 5, kVocab = 2538, kCells = 196, kDim = 512, kBatch = 64;

/// Words per caption as in Flickr8k's training captions (mean 11.8, sd 3.9; 1 to 37 words,
/// cut at the model's 24), drawn with a fixed seed.
std::int64_t flickr8k_words(std::mt19937& rng) {
  std::normal_distribution<double> words(11.8, 3.9);
  return std::clamp<std::int64_t>(std::llround(words(rng)), 1, 24);
}

/// The 1-minute load average, said with every figure: the host is shared.
double load_average() {
  double load = -1;
  std::ifstream("/proc/loadavg") >> load;
  return load;
}

/// 224 px scenes of random pixels, for the cache build's timing.
class RandomImages : public SceneSource {
 public:
  explicit RandomImages(std::size_t n) : n_(n) {}
  std::size_t size() const override { return n_; }
  Scene get(std::size_t i) const override {
    Scene s;
    s.id = std::int64_t(i);
    s.image = RgbImage(224, 224);
    std::mt19937 rng{std::uint32_t(i)};
    for (auto& p : s.image.pixels) p = std::uint8_t(rng());
    s.captions = {"a picture"};
    return s;
  }
  std::string describe() const override { return "random 224 px images"; }

 private:
  std::size_t n_;
};

/// The backbone's forward rate alone and the annotation cache's build rate (images a second),
/// on the same images in the same batches.
nlohmann::json backbone_rates(const BenchArgs* a, const fs::path& dir) {
  ModelConfig mc;
  mc.image_size = 224;
  mc.backbone_path = a->backbone;
  mc.encoder_widths.clear();
  mc.vocab_size = kVocab;
  auto model = CaptionModel::create(mc, Vocabulary::build({{"a", "picture"}}, 1), torch::kCPU);
  const std::int64_t images = 64, batch = 32;
  auto source = std::make_shared<RandomImages>(std::size_t(images));
  std::vector<Scene> scenes;
  for (std::int64_t i = 0; i < images; ++i) scenes.push_back(source->get(std::size_t(i)));
  torch::NoGradGuard no_grad;
  model.net->eval();
  (void)model.net->encode(torch::rand({batch, 3, 224, 224}));  // warm-up: oneDNN's primitives for the batch
  auto forward = [&] {
    const auto t0 = Clock::now();
    for (std::int64_t b = 0; b < images; b += batch) {
      std::vector<const RgbImage*> ptrs;
      for (std::int64_t i = b; i < b + batch; ++i) ptrs.push_back(&scenes[std::size_t(i)].image);
      (void)model.net->encode(images_to_tensor(ptrs, 224));
    }
    return seconds_since(t0);
  };
  // The forward alone before and after the build: on a shared host the load moves between them.
  const double forward_before = forward();
  FeatureOptions o;
  o.batch = batch;
  o.cache_dir = (dir / "build").string();
  const auto t1 = Clock::now();
  const auto cache = build_annotation_cache(model, source, "bench " + std::to_string(::getpid()), o);
  const double build_s = seconds_since(t1);
  const double forward_s = (forward_before + forward()) / 2;
  return {{"images", images}, {"batch", batch}, {"backbone", a->backbone}, {"grid", model.config.grid_h * model.config.grid_w},
          {"dim", model.config.annotation_dim}, {"forward_images_per_s", double(images) / forward_s},
          {"build_images_per_s", double(images) / build_s}, {"build_over_forward_time", build_s / forward_s},
          {"load_average", load_average()}};
}

/// The cache the epoch reads: `stored` images of synthetic annotations (seed 1).
void write_synthetic_cache(const fs::path& dir, std::int64_t stored) {
  auto cache = AnnotationCache::open("corpus_epoch bench", std::size_t(stored), kCells, kDim, dir.string());
  torch::manual_seed(1);
  for (std::int64_t i = 0; i < stored; ++i) cache.write(std::size_t(i), torch::relu(torch::randn({kCells, kDim})));
  cache.finish();
}

/// A batch of random captions as long as Flickr8k's; adds the words they predict to `tokens`.
std::vector<std::vector<std::int64_t>> random_captions(std::mt19937& rng, double& tokens) {
  std::vector<std::vector<std::int64_t>> caps;
  for (std::int64_t i = 0; i < kBatch; ++i) {
    std::vector<std::int64_t> c = {Vocabulary::kStart};
    for (std::int64_t w = flickr8k_words(rng); w > 0; --w) c.push_back(4 + std::int64_t(rng() % (kVocab - 4)));
    c.push_back(Vocabulary::kEnd);
    tokens += double(c.size() - 1);
    caps.push_back(std::move(c));
  }
  return caps;
}

}  // namespace

void bench_corpus_epoch(const BenchArgs* a) {
  const fs::path dir = fs::temp_directory_path() / ("fovea-bench-corpus-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  // The cache holds as many distinct images as the measured steps read (each 196 x 512 bf16,
  // 200 KB); the epoch's other images would read the same way.
  const std::int64_t steps = std::max(4, a->train_steps), stored = std::min(kImages, steps * kBatch);
  write_synthetic_cache(dir, stored);
  const auto cache = AnnotationCache::open("corpus_epoch bench", std::size_t(stored), kCells, kDim, dir.string());
  ModelConfig cfg;
  cfg.annotation_dim = kDim;
  cfg.grid_h = cfg.grid_w = 14;
  cfg.embed_dim = cfg.attention_dim = cfg.hidden_dim = 512;
  cfg.vocab_size = kVocab;
  Decoder dec(cfg);
  dec->train();
  FusedAdam opt(dec->parameters(), torch::optim::AdamOptions(1e-4));
  DecoderPassOptions pass_options;
  pass_options.bf16 = a->precision == "bf16";
  pass_options.parts = a->parts;
  pass_options.word_gradient_rows = true;  // as `fovea train` runs: FusedAdam takes them
  std::mt19937 rng(7);
  std::vector<double> step_s;
  double tokens = 0;
  auto step = [&](std::int64_t s, double& step_tokens) {
    std::vector<std::size_t> idx;
    for (std::int64_t i = 0; i < kBatch; ++i) idx.push_back(std::size_t((s * kBatch + i) % stored));
    const auto caps = random_captions(rng, step_tokens);
    DecoderPassInput input;
    input.annotations = pass_options.bf16 ? cache.read_stored(idx) : cache.read(idx);  // as a training step takes them
    std::tie(input.tokens, input.lengths) = pad_captions(caps);
    clear_gradients(opt);
    (void)decoder_pass(dec, input, pass_options, nullptr);
    opt.step();
  };
  for (std::int64_t s = 0; s < steps + 2; ++s) {  // two warm-up steps
    const auto t0 = Clock::now();
    double step_tokens = 0;
    step(s, step_tokens);
    if (s >= 2) step_s.push_back(seconds_since(t0)), tokens += step_tokens;
  }
  profile_once(a->profile, "corpus_epoch", [&] {
    double ignored = 0;
    step(steps + 2, ignored);
  });
  std::sort(step_s.begin(), step_s.end());
  double total = 0;
  for (double t : step_s) total += t;
  const double per_step = total / double(step_s.size());
  const double captions = double(kImages * kCaptionsPerImage);
  const double epoch_steps = std::ceil(captions / double(kBatch));
  nlohmann::json j = {
      {"case", "corpus_epoch"},
      {"config", {{"images", kImages}, {"captions", captions}, {"vocab", kVocab}, {"grid", "14x14"}, {"D", kDim},
                  {"embed", 512}, {"attention", 512}, {"hidden", 512}, {"batch", kBatch},
                  {"caption_words", "Flickr8k-like: normal(11.8, 3.9) in 1..24, seed 7"}, {"precision", a->precision},
                  {"annotations", "synthetic, from an annotation cache (bf16, CRC-32 checked on every read)"}}},
      {"threads", a->threads},
      {"steps_timed", step_s.size()},
      {"step_s_mean", per_step},
      {"step_s_median", step_s[step_s.size() / 2]},
      {"tokens_per_s", tokens / total},
      {"images_per_s", double(kBatch) / per_step},
      {"epoch_steps", epoch_steps},
      {"epoch_s", per_step * epoch_steps},
      {"epoch_note", "extrapolated: " + std::to_string(step_s.size()) + " steps timed of the epoch's " +
                         std::to_string(std::int64_t(epoch_steps)) + " (every caption once)"},
      {"load_average", load_average()}};
  if (!a->backbone.empty()) {
    j["backbone"] = backbone_rates(a, dir);
    const double forward = j["backbone"]["forward_images_per_s"].get<double>();
    j["training_over_backbone_forward"] = j["images_per_s"].get<double>() / forward;
  } else {
    j["backbone"] = "not measured: give --backbone FILE (tools/export_backbone.py vgg16 ...)";
  }
  fs::remove_all(dir);
  std::cout << j.dump() << std::endl;
}

}  // namespace fovea::cli
