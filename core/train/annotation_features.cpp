#include "core/train/annotation_features.h"


#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "core/data/image_tensor.h"
#include "core/io/crc32.h"
#include "core/train/process_group.h"

namespace fovea {

namespace {

using Clock = std::chrono::steady_clock;

/// The encoder's weights and buffers, CRC-32 by CRC-32, as hex: what its annotations depend on
/// besides its code.
std::string weights_digest(EncoderImpl& encoder) {
  std::uint32_t c = 0;
  auto add = [&c](const std::string& name, const torch::Tensor& t) {
    c = crc32_update(c, name.data(), name.size());
    const auto flat = t.detach().to(torch::kCPU).contiguous();
    const auto bytes = std::size_t(flat.numel()) * flat.element_size();
    if (bytes > 0) c = crc32_update(c, flat.data_ptr(), bytes);
  };
  for (const auto& p : encoder.named_parameters()) add(p.key(), p.value());
  for (const auto& b : encoder.named_buffers()) add(b.key(), b.value());
  for (const auto& p : encoder.backbone_parameters()) add(p.first, p.second);
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08lx", static_cast<unsigned long>(c));
  return buf;
}

/// The encoder in eval mode while it lives (a fixed encoder computes the same in both; this
/// makes sure), then as it was.
class EvalMode {
 public:
  explicit EvalMode(EncoderImpl& encoder) : encoder_(encoder), was_training_(encoder.is_training()) { encoder_.eval(); }
  ~EvalMode() { encoder_.train(was_training_); }

 private:
  EncoderImpl& encoder_;
  bool was_training_;
};

/// Annotations (B, L, D) of scenes `indices` of `source`, as training would compute them.
torch::Tensor encode_scenes(CaptionModel& model, const SceneSource& source, const std::vector<std::size_t>& indices) {
  std::vector<Scene> scenes;
  scenes.reserve(indices.size());
  for (auto i : indices) scenes.push_back(source.get(i));
  std::vector<const RgbImage*> images;
  for (const auto& s : scenes) images.push_back(&s.image);
  torch::NoGradGuard no_grad;
  EvalMode eval(*model.net->encoder);
  return model.net->encode(images_to_tensor(images, model.config.image_size).to(model.device)).to(torch::kCPU);
}

}  // namespace

bool encoder_is_fixed(const TrainConfig& config, CaptionModel& model) {
  auto& encoder = *model.net->encoder;
  if (encoder.has_backbone()) return !model.config.backbone_trainable;
  return encoder.blocks() > 0 && frozen_encoder_blocks(config) >= encoder.blocks();
}

std::string annotation_cache_key(const TrainConfig& config, CaptionModel& model, const SceneSource& source) {
  const auto images = source.content_key();
  if (images.empty()) return {};
  std::string key = "images: " + images + "; encoder: ";
  std::error_code ec;
  if (!config.backbone.empty() && std::filesystem::exists(config.backbone, ec)) key += file_digest(config.backbone) + " ";
  key += "weights=" + weights_digest(*model.net->encoder) + " image_size=" + std::to_string(model.config.image_size) +
         " grid=" + std::to_string(model.config.grid_h) + "x" + std::to_string(model.config.grid_w) + "x" +
         std::to_string(model.config.annotation_dim);
  return key;
}

std::shared_ptr<AnnotationCache> build_annotation_cache(CaptionModel& model, std::shared_ptr<const SceneSource> source,
                                                        const std::string& key, const FeatureOptions& o) {
  if (o.batch < 1) throw std::invalid_argument("annotation cache: the batch must be at least 1");
  auto cache = std::make_shared<AnnotationCache>(AnnotationCache::open(
      key, source->size(), model.config.grid_h * model.config.grid_w, model.config.annotation_dim, o.cache_dir));
  // Damaged entries found while training are computed again by the same encoder.
  cache->set_repair(
      [&model, source](std::size_t i) { return encode_scenes(model, *source, {i})[0]; }, o.on_message);
  if (cache->complete()) {
    if (o.on_message) o.on_message("annotations of " + source->describe() + " from " + cache->path());
    return cache;
  }
  const auto missing = cache->missing();
  const auto total = std::int64_t(source->size());
  std::int64_t done = total - std::int64_t(missing.size());
  if (o.on_message) {
    o.on_message("computing the annotations of " + std::to_string(missing.size()) + " images" +
                 (done > 0 ? " (" + std::to_string(done) + " already in)" : std::string()) + " into " + cache->path());
  }
  const auto started = Clock::now();
  std::int64_t computed = 0;
  for (std::size_t begin = 0; begin < missing.size(); begin += std::size_t(o.batch)) {
    if (o.stop != nullptr && o.stop->load()) break;
    const auto end = std::min(missing.size(), begin + std::size_t(o.batch));
    const std::vector<std::size_t> indices(missing.begin() + std::ptrdiff_t(begin), missing.begin() + std::ptrdiff_t(end));
    const auto annotations = encode_scenes(model, *source, indices);
    for (std::size_t k = 0; k < indices.size(); ++k) cache->write(indices[k], annotations[std::int64_t(k)]);
    computed += std::int64_t(indices.size());
    done += std::int64_t(indices.size());
    if (o.on_progress) {
      FeatureProgress p;
      p.done = done, p.total = total;
      const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
      p.images_per_s = seconds > 0 ? double(computed) / seconds : 0;
      p.eta_s = p.images_per_s > 0 ? double(total - done) / p.images_per_s : 0;
      o.on_progress(p);
    }
  }
  if (cache->finish() && o.on_message) o.on_message("annotations of " + source->describe() + " written to " + cache->path());
  return cache;
}

std::shared_ptr<AnnotationCache> open_run_annotations(const TrainConfig& config, CaptionModel& model,
                                                      std::shared_ptr<const SceneSource> train, ProcessGroup* group,
                                                      const TrainCallbacks& cb, bool& stopped) {
  stopped = false;
  if (!encoder_is_fixed(config, model)) return nullptr;
  const auto key = annotation_cache_key(config, model, *train);
  if (key.empty()) return nullptr;  // the built-in scenes: drawn afresh, nothing to keep
  FeatureOptions options;
  options.stop = cb.stop;
  const bool builds = group == nullptr || group->environment().local_rank == 0;
  if (builds) {
    options.on_message = cb.on_message;
    if (cb.on_progress) {
      options.on_progress = [&cb](const FeatureProgress& f) {
        TrainProgress p;
        p.features_done = f.done, p.features_total = f.total;
        p.eta_s = f.eta_s;
        cb.on_progress(p);
      };
    }
  }
  std::shared_ptr<AnnotationCache> cache;
  if (builds) cache = build_annotation_cache(model, train, key, options);
  if (group != nullptr) group->barrier();
  if (!builds) {
    options.stop = nullptr;
    auto opened = std::make_shared<AnnotationCache>(AnnotationCache::open(
        key, train->size(), model.config.grid_h * model.config.grid_w, model.config.annotation_dim));
    if (opened->complete()) cache = build_annotation_cache(model, train, key, options);  // with its repairs
    else cache = opened;
  }
  double incomplete = cache->complete() ? 0 : 1;
  if (group != nullptr) incomplete = group->all_reduce_sum(incomplete);
  stopped = incomplete > 0;
  return stopped ? nullptr : cache;
}

}  // namespace fovea
