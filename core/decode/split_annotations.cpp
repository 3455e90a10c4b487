#include "core/decode/split_annotations.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "core/data/image_tensor.h"
#include "core/io/crc32.h"
#include "core/io/file_lock.h"

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

/// The CRC-32 of each scene's stored pixels: what each entry must have been computed from.
std::vector<std::uint32_t> image_crcs(const SceneSource& source) {
  std::vector<std::uint32_t> crcs(source.size());
  for (std::size_t i = 0; i < crcs.size(); ++i) crcs[i] = source.image_crc(i);
  return crcs;
}

void say(const FeatureOptions& o, const std::string& m) {
  if (o.on_message) o.on_message(m);
}

/// Computes entries `todo` of `cache` in batches, reporting progress; stops early on the stop flag.
void compute_entries(CaptionModel& model, const SceneSource& source, AnnotationCache& cache,
                     const std::vector<std::size_t>& todo, const std::vector<std::uint32_t>& inputs,
                     const FeatureOptions& o) {
  const auto total = std::int64_t(source.size());
  std::int64_t done = total - std::int64_t(todo.size());
  const auto started = Clock::now();
  std::int64_t computed = 0;
  for (std::size_t begin = 0; begin < todo.size(); begin += std::size_t(o.batch)) {
    if (o.stop != nullptr && o.stop->load()) break;
    const auto end = std::min(todo.size(), begin + std::size_t(o.batch));
    const std::vector<std::size_t> indices(todo.begin() + std::ptrdiff_t(begin), todo.begin() + std::ptrdiff_t(end));
    const auto annotations = encode_scenes(model, source, indices);
    for (std::size_t k = 0; k < indices.size(); ++k) cache.write(indices[k], annotations[std::int64_t(k)], inputs[indices[k]]);
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
}

}  // namespace

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

std::string annotation_cache_key(CaptionModel& model, const SceneSource& source) {
  const auto images = source.content_key();
  if (images.empty()) return {};
  std::string key = "images: " + images + "; encoder: ";
  if (const auto& bytes = model.config.backbone_bytes) key += content_digest(crc32_of(bytes->data(), bytes->size()), bytes->size()) + " ";
  key += "weights=" + weights_digest(*model.net->encoder) + " image_size=" + std::to_string(model.config.image_size) +
         " grid=" + std::to_string(model.config.grid_h) + "x" + std::to_string(model.config.grid_w) + "x" +
         std::to_string(model.config.annotation_dim);
  return key;
}

std::shared_ptr<AnnotationCache> build_annotation_cache(CaptionModel& model, std::shared_ptr<const SceneSource> source,
                                                        const std::string& key, const FeatureOptions& o) {
  if (o.batch < 1) throw std::invalid_argument("annotation cache: the batch must be at least 1");
  // One builder at a time: a second process waits, then finds the entries the first computed.
  FileLock lock(AnnotationCache::lock_path(key, o.cache_dir), true, [&](const std::string& holder) {
    say(o, "waiting for " + holder + ", which is computing the annotations of " + source->describe() + " into the same cache");
  });
  auto cache = std::make_shared<AnnotationCache>(AnnotationCache::open(
      key, source->size(), model.config.grid_h * model.config.grid_w, model.config.annotation_dim, o.cache_dir, o.on_message));
  // Damaged entries found while reading are computed again by the same encoder.
  cache->set_repair([&model, source](std::size_t i) { return encode_scenes(model, *source, {i})[0]; }, o.on_message);
  const auto inputs = image_crcs(*source);
  const auto todo = cache->to_compute(inputs);
  if (todo.empty()) {
    say(o, "annotations of " + source->describe() + " from " + cache->path());
    return cache;
  }
  const auto total = source->size();
  if (cache->complete()) {
    say(o, "computing the annotations of " + std::to_string(todo.size()) + " of " + std::to_string(total) +
               " images again in " + cache->path() + ": their images changed since they were computed");
  } else {
    const auto kept = total - todo.size();
    say(o, "computing the annotations of " + std::to_string(todo.size()) + " images" +
               (kept > 0 ? " (" + std::to_string(kept) + " already in)" : std::string()) + " into " + cache->path());
  }
  compute_entries(model, *source, *cache, todo, inputs, o);
  if (!cache->complete() && cache->finish()) say(o, "annotations of " + source->describe() + " written to " + cache->path());
  return cache;
}

std::size_t repair_annotation_cache(CaptionModel& model, std::shared_ptr<const SceneSource> source, AnnotationCache& cache,
                                    const FeatureOptions& o) {
  std::size_t repaired = source->repair_damaged_images();
  const auto damaged = cache.damaged();
  for (const auto i : damaged) {
    cache.write(i, encode_scenes(model, *source, {i})[0], source->image_crc(i));
    say(o, cache.path() + ": entry " + std::to_string(i) + " (scene " + std::to_string(source->get_without_image(i).id) +
               ") was damaged: computed again and repaired");
  }
  return repaired + damaged.size();
}

SplitAnnotations::SplitAnnotations(CaptionModel& model, std::shared_ptr<const SceneSource> source, bool cached,
                                   FeatureOptions options)
    : model_(model), source_(std::move(source)), cached_(cached), options_(std::move(options)) {
  if (cached_ && source_->content_key().empty()) cached_ = false;  // not on disk: nothing to keep
}

torch::Tensor SplitAnnotations::read(const std::vector<std::size_t>& indices) {
  if (!cached_) return encode_scenes(model_, *source_, indices).to(model_.device);
  if (!cache_) {
    cache_ = build_annotation_cache(model_, source_, annotation_cache_key(model_, *source_), options_);
    if (!cache_->complete()) throw std::runtime_error(cache_->path() + ": stopped while computing the annotations");
  }
  return cache_->read(indices).to(model_.device);
}

}  // namespace fovea
