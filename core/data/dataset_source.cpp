#include "core/data/dataset_source.h"

#include <algorithm>
#include <stdexcept>

#include "core/data/caption_dataset.h"

namespace fovea {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

class CachedDatasetSource : public SceneSource {
 public:
  CachedDatasetSource(std::vector<CaptionedImage> images, ImageCache cache, std::string description, std::string key)
      : images_(std::move(images)), cache_(std::move(cache)), description_(std::move(description)), key_(std::move(key)) {}
  std::size_t size() const override { return cache_.size(); }
  Scene get(std::size_t index) const override {
    const auto& record = images_.at(cache_.kept().at(index));
    Scene s;
    s.id = record.id;
    s.image = cache_.image(index);
    s.captions = record.captions;
    return s;
  }
  std::string describe() const override { return description_ + " (" + std::to_string(size()) + " images)"; }
  Scene get_without_image(std::size_t index) const override {
    const auto& record = images_.at(cache_.kept().at(index));
    Scene s;
    s.id = record.id;
    s.captions = record.captions;
    return s;
  }
  std::string content_key() const override { return key_; }
  std::uint32_t image_crc(std::size_t index) const override { return cache_.pixels_crc(index); }
  std::size_t repair_damaged_images() const override { return cache_.verify(); }

 private:
  std::vector<CaptionedImage> images_;
  ImageCache cache_;
  std::string description_;
  std::string key_;  ///< the image cache's source and image size
};

}  // namespace

bool is_builtin_dataset(const std::string& dataset) { return dataset == "fashion-scenes"; }

void check_dataset_name(const std::string& dataset) {
  if (is_builtin_dataset(dataset)) return;
  if ((starts_with(dataset, "karpathy:") || starts_with(dataset, "coco:")) && dataset.find(':') + 1 < dataset.size()) return;
  throw std::invalid_argument("dataset must be fashion-scenes, karpathy:PATH/dataset_*.json or coco:PATH/captions_*.json, got '" +
                              dataset + "'");
}

std::shared_ptr<const SceneSource> open_dataset_split(const std::string& dataset, const std::string& images_dir,
                                                      const std::string& split, const ImageCacheOptions& cache,
                                                      std::size_t limit, std::size_t val_size,
                                                      const std::function<void(const std::string&)>& message) {
  check_dataset_name(dataset);
  if (is_builtin_dataset(dataset)) throw std::invalid_argument("open_dataset_split: fashion-scenes is built in, not on disk");
  if (images_dir.empty()) throw std::invalid_argument(dataset + ": needs the folder of its images (--images DIR)");
  const bool karpathy = starts_with(dataset, "karpathy:");
  const std::string file = dataset.substr(dataset.find(':') + 1);
  auto all = karpathy ? read_karpathy_dataset(file, images_dir) : read_coco_dataset(file, images_dir);
  std::vector<CaptionedImage> chosen;
  if (karpathy) {
    if (split != "train" && split != "val" && split != "test") {
      throw std::invalid_argument(file + ": split must be train, val or test, got '" + split + "'");
    }
    chosen = select_split(all, split);
  } else {
    const std::size_t v = std::min(val_size, all.size());
    if (split == "val") chosen.assign(all.begin(), all.begin() + std::ptrdiff_t(v));
    else if (split == "train") chosen.assign(all.begin() + std::ptrdiff_t(v), all.end());
    else chosen = all;
  }
  if (limit > 0 && chosen.size() > limit) chosen.resize(limit);
  if (chosen.empty()) throw std::runtime_error(file + ": no images in split '" + split + "'");
  const std::string source = describe_source_file(file) + " images=" + images_dir + " split=" + split +
                             " count=" + std::to_string(chosen.size()) + (karpathy ? "" : " val=" + std::to_string(val_size)) +
                             (cache.skip_bad_images ? " skip-bad" : "");
  auto images = ImageCache::open(chosen, source, cache, message);
  return std::make_shared<CachedDatasetSource>(std::move(chosen), std::move(images),
                                               std::string(karpathy ? "karpathy" : "coco") + ":" + file + "/" + split +
                                                   ", " + std::to_string(cache.image_size) + "px",
                                               source + " size=" + std::to_string(cache.image_size));
}

}  // namespace fovea
