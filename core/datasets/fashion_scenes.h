#pragma once
/// "Fashion scenes": the built-in offline captioning dataset (docs/design.md §4.1). Canvases composed of
/// 1–4 tinted Fashion-MNIST items at random positions and scales, five reference captions per
/// image naming colours, classes and spatial relations, and each object's bounding box.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/data/scene_source.h"
#include "core/datasets/fashion_mnist.h"

namespace fovea {

struct FashionScenesOptions {
  int image_size = 112;
  int min_objects = 1;
  int max_objects = 4;
  int min_item_size = 0;  ///< side of the scaled 28x28 item in pixels; 0 = 30/112 of the image
  int max_item_size = 0;  ///< 0 = 44/112 of the image
  std::uint64_t seed = 1;
  /// Augmentation of the train split only: each item is mirrored left-right with probability 1/2
  /// (a mirrored garment is the same garment). Validation and test scenes never are, and
  /// positions, classes and colours are the same as without it.
  bool mirror_items = true;
  /// Training: every epoch after the first draws as many new scenes from the same items (epoch e:
  /// seed + e), so a run never sees a scene twice. False: the same scenes every epoch.
  bool fresh_every_epoch = true;
  std::string mnist_dir = fashion_mnist_dir();  ///< $FOVEA_FASHION_MNIST, else the Debian package's folder
};

/// `o` with item sizes of 0 replaced by their defaults for o.image_size.
FashionScenesOptions with_item_sizes(FashionScenesOptions o);

/// Colour words and their RGB tints.
struct NamedColour {
  std::string name;
  std::uint8_t r, g, b;
};
const std::vector<NamedColour>& scene_colours();
/// The palette's names, in order (what SceneSource::colour_names() gives for the scenes).
std::vector<std::string> scene_colour_names();

class FashionScenes : public SceneSource {
 public:
  /// split: "train" (items from the 60k train set), "val" or "test" (disjoint halves of the 10k
  /// test set). count: number of scenes in the split.
  FashionScenes(std::string split, std::size_t count, FashionScenesOptions options = {});
  /// Builds scenes from items already in memory (tests use this with synthetic items).
  FashionScenes(std::string split, std::size_t count, std::shared_ptr<const FashionMnist> items,
                FashionScenesOptions options);

  std::size_t size() const override { return count_; }
  Scene get(std::size_t index) const override;
  std::string describe() const override;
  std::vector<std::string> colour_names() const override { return scene_colour_names(); }
  const FashionScenesOptions& options() const { return options_; }
  const std::shared_ptr<const FashionMnist>& items() const { return items_; }
  /// Whether this source mirrors its items (options().mirror_items, train split only).
  bool mirrors_items() const { return options_.mirror_items && split_ == "train"; }

 private:
  std::string split_;
  std::size_t count_;
  FashionScenesOptions options_;
  std::shared_ptr<const FashionMnist> items_;
  std::size_t item_begin_ = 0, item_end_ = 0;  ///< the item range this split draws from
};

/// The five reference captions of a scene with these objects on a canvas of `image_size`.
std::vector<std::string> describe_objects(const std::vector<SceneObject>& objects, int image_size);

}  // namespace fovea
