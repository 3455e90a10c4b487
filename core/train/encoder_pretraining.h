#pragma once
/// Encoder pretraining on single Fashion-MNIST items (docs/design.md §2.5): before the captioning steps, the
/// encoder and the auxiliary class and colour heads learn to name one tinted training item per
/// small canvas, drawn at the scenes' item sizes. The decoder needs annotations that tell a shirt
/// from a coat; the captioning objective teaches that slowly and the encoder's own accuracy bounds
/// how often captions name a class that is not in the scene.
#include <cstdint>
#include <memory>
#include <string>

#include "core/datasets/fashion_scenes.h"
#include "core/model/show_attend_tell.h"
#include "core/train/process_group.h"

namespace fovea {

/// How well an encoder's auxiliary class head names objects.
struct ClassHeadScore {
  std::size_t items = 0;  ///< objects named
  double accuracy = 0;    ///< share named right
};

/// The canvases: one item each at the sizes `scenes` draws (item sizes resolved), on the smallest
/// multiple of 8 px that leaves the largest item 4 px of play (48 px for the built-in 30-44 px
/// items): a fifth of a scene's pixels.
FashionScenesOptions single_item_options(const FashionScenesOptions& scenes);

struct PretrainStep {
  double loss = 0;      ///< per-cell class + colour cross-entropy + the item's pooled class cross-entropy
  double accuracy = 0;  ///< share of this batch's items the pooled class head named right
  double lr = 0;        ///< the step's learning rate
};


/// The pretraining's loss on one batch of single items: the per-cell class and colour
/// cross-entropies plus the pooled class cross-entropy of each item, and the share of items the
/// pooled class head named right. Forward only (in whatever autocast the caller holds); the caller
/// steps.
struct SingleItemLoss {
  torch::Tensor loss;      ///< scalar, float
  torch::Tensor accuracy;  ///< scalar, no gradient
};
SingleItemLoss single_item_loss(ShowAttendTell& net, const Vocabulary& vocab, const FashionScenes& canvases,
                                const std::vector<std::size_t>& indices, std::uint64_t seed, torch::Device device);

/// Learning rate of step k of `steps`: a linear warm-up to `peak` over the first 200 steps (or
/// tenth of them), then a cosine down to peak/20 at the last.
double pretraining_lr(double peak, std::int64_t k, std::int64_t steps);

/// Names the objects of the first `count` scenes of `source` (drawn at image_size px) with net's
/// auxiliary class head on each object's annotations averaged over its cells, in eval mode: how
/// well the encoder tells the classes apart, single items or scenes.
ClassHeadScore name_objects_with_class_head(ShowAttendTell& net, const Vocabulary& vocab, const SceneSource& source,
                                          std::size_t count, std::int64_t image_size, torch::Device device);

/// How the pretraining steps (Adam).
struct PretrainingOptions {
  std::int64_t steps = 0, batch = 128;
  double lr = 2e-3;  ///< peak of pretraining_lr()
  /// Data parallel (core/train/data_parallel.h): each process steps on its share of every batch
  /// and the gradients are averaged over the group. Null: one process.
  ProcessGroup* group = nullptr;
};

class EncoderPretraining {
 public:
  /// Trains net's encoder, aux_class and aux_colour (at pretraining_lr(lr, k, steps)) on
  /// `batch` canvases per step, drawn from the training split of `scenes` (its items and
  /// options, canvas size aside). bf16: CPU autocast.
  EncoderPretraining(ShowAttendTell net, const Vocabulary& vocab, const FashionScenes& scenes,
                     const PretrainingOptions& options, torch::Device device, bool bf16, std::uint64_t seed);
  ~EncoderPretraining();

  /// One optimiser step on the k-th batch (deterministic in k, so a resumed run sees the same items).
  PretrainStep step(std::int64_t k);
  /// Names `count` single items of the validation split of `val_scenes`' items (for the built-in
  /// scenes, Fashion-MNIST test items the training never sees), drawn on canvases as the
  /// pretraining draws its own, with the pooled class head, in eval mode.
  ClassHeadScore score_held_out(const FashionScenes& val_scenes, std::size_t count);
  std::int64_t steps() const { return options_.steps; }
  std::string describe() const;

 private:
  ShowAttendTell net_;
  const Vocabulary& vocab_;
  std::unique_ptr<FashionScenes> items_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  PretrainingOptions options_;
  torch::Device device_;
  bool bf16_;
  std::uint64_t seed_;
};

}  // namespace fovea
