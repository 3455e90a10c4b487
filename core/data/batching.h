#pragma once
/// Turning scenes into training batches, deterministically: the order of an epoch and the
/// reference caption drawn for each scene depend only on (seed, epoch, index), so a resumed run
/// sees exactly the batches an uninterrupted one would.
#include <cstdint>
#include <vector>

#include "core/data/scene_source.h"
#include "core/data/vocabulary.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

struct Batch {
  torch::Tensor images;   ///< (B, 3, S, S) floats in [0, 1]; undefined when annotations are given
  /// (B, L, D) the images' annotations from the annotation cache (core/data/annotation_cache.h),
  /// for a run whose encoder does not train; else undefined.
  torch::Tensor annotations;
  torch::Tensor tokens;   ///< (B, T+1) <start> w.. <end> <pad>..
  torch::Tensor lengths;  ///< (B) predicted tokens per caption (words + <end>)
  torch::Tensor cell_class;   ///< (B, L) class id + 1 of the object under each cell, 0 = none
  torch::Tensor cell_colour;  ///< (B, L) colour id + 1, 0 = none
  bool has_cell_labels = false;  ///< every scene in the batch came with object boxes
  torch::Tensor word_boxes;  ///< (B, T, L) 1 on the cells of the object word t names (colour and noun words), else 0
  torch::Tensor word_has_box;  ///< (B, T) bool: word t names an object of the scene
  std::vector<std::size_t> indices;
  /// The scenes, their pixels dropped (captions, objects, image size): for self-critical training's
  /// rewards; empty otherwise.
  std::vector<Scene> scenes;
};

/// Per-cell labels of a scene on a grid_h x grid_w grid: cells whose centre lies in an object's
/// box get (class + 1, colour + 1); an object too small to hold a centre labels the cell under its
/// own centre. Returns false when the scene has no objects (no labels).
/// The cells (row-major indices) of a grid_h x grid_w grid over a width x height image whose
/// centres lie in the box [x0, x1) x [y0, y1); when none does, the cell under the box's centre.
std::vector<std::int64_t> cells_in_box(int x0, int y0, int x1, int y1, int width, int height, std::int64_t grid_h,
                                       std::int64_t grid_w);
bool cell_labels(const Scene& scene, std::int64_t grid_h, std::int64_t grid_w, const std::vector<std::string>& palette,
                 std::int64_t* classes, std::int64_t* colours);

/// For each word of `words` (a caption of `scene`), the object it names: a colour word followed
/// by a noun ("red sneaker"), both words naming the scene's object with that colour and class.
/// Returns one entry per word: the object's index in scene.objects, or -1.
std::vector<int> named_objects(const Scene& scene, const std::vector<std::string>& words);

/// Attention supervision's targets for captions `words` (one per scene, at most T words): (B, T, L)
/// marking the cells of the object each word names (named_objects, object_cells) and (B, T) bool
/// saying which words name one.
std::pair<torch::Tensor, torch::Tensor> word_box_targets(const std::vector<const Scene*>& scenes,
                                                         const std::vector<std::vector<std::string>>& words, std::int64_t T,
                                                         std::int64_t grid_h, std::int64_t grid_w);
/// Cells of a grid_h x grid_w grid that the object's box overlaps (cell centre inside the box
/// dilated by half a cell): the cells grounding counts as "inside", row-major.
std::vector<bool> object_cells(const SceneObject& object, int image_width, int image_height, int grid_h, int grid_w);

/// A permutation of [0, n) for this epoch.
std::vector<std::size_t> epoch_order(std::size_t n, std::uint64_t seed, std::int64_t epoch);

/// Picks one reference caption per scene (which one depends on seed, epoch and index).
/// Captions longer than max_words are cut. image_size 0: no images (Batch::images undefined).
/// keep_scenes: Batch::scenes holds the scenes, their pixels dropped.
Batch make_batch(const SceneSource& source, const std::vector<std::size_t>& indices, const Vocabulary& vocab,
                 std::int64_t image_size, std::uint64_t seed, std::int64_t epoch, std::int64_t max_words,
                 std::int64_t grid_h = 0, std::int64_t grid_w = 0, bool word_boxes = false, bool keep_scenes = false);

/// Pads encoded captions (each <start> .. <end>) into (tokens, lengths).
std::pair<torch::Tensor, torch::Tensor> pad_captions(const std::vector<std::vector<std::int64_t>>& encoded);

}  // namespace fovea
