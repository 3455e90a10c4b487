#pragma once
/// The item classifier: a frozen copy of the encoder and its auxiliary class head as the
/// encoder pretraining left them, before the captioning epochs reshape the encoder for scenes.
/// At decoding it names each object of a plain-background image seen alone (cut out onto a
/// canvas like the pretraining's, and in its mirror), and the class nouns' share of each word's
/// probability is split with its opinion of the objects the word's α falls on
/// (DecodeOptions::cut_out_tokens; docs/attention.md, "Cut-outs").
#include <vector>

#include "core/cut_out_defaults.h"
#include "core/encoder.h"
#include "core/image.h"

namespace fovea {

class ItemClassifierImpl : public torch::nn::Module {
 public:
  /// An empty (unfilled) classifier with config's built-in CNN and a class head over
  /// background + `classes`.
  ItemClassifierImpl(ModelConfig config, std::int64_t classes);

  /// Copies the encoder's weights and batch-norm statistics and the class head's weights; from
  /// then on filled() is true. The copy is never trained.
  void copy_from(torch::nn::Module& encoder, torch::nn::Module& class_head);
  bool filled() const;
  /// Side of the canvases objects are cut out onto (the pretraining's).
  std::int64_t canvas() const { return canvas_; }

  /// Class probabilities (N, classes) of the objects on `canvases` (N, 3, S, S), each pooled over
  /// the canvas cells in `cells` (N, L) (weights, rows summing to > 0); background left out.
  torch::Tensor classify(const torch::Tensor& canvases, const torch::Tensor& cells);

  /// Always in eval mode: the copy keeps its batch-norm statistics whatever its parent does.
  void train(bool on = true) override;

 private:
  Encoder encoder_{nullptr};
  torch::nn::Linear class_head_{nullptr};
  torch::Tensor filled_;  ///< buffer: 1 once copied
  std::int64_t canvas_ = 48;
};
TORCH_MODULE(ItemClassifier);

/// What the item classifier says about each object found in one image.
struct ObjectCutOuts {
  torch::Tensor cells;    ///< (n, L): 1 where the image's grid cell centre lies in the object's box
  torch::Tensor classes;  ///< (n, classes): the object's class probabilities, averaged over its views
  std::int64_t count() const { return cells.defined() ? cells.size(0) : 0; }
};

/// The views each object is named in (test-time augmentation): centred and mirrored, and with
/// `shift` > 0 each of the two also moved by ±shift px along both diagonals (ten views). Their
/// class probabilities are averaged.
struct CutOutViews {
  int shift = kDefaultCutOutShift;  ///< px; 0: the centred cut-out and its mirror only (docs/attention.md, "Row 67")
};

/// Finds the objects of each image (segment_objects; none on images without a plain background)
/// and names each with `classifier`. images: (B, 3, S, S) in [0, 1] as the encoder takes them;
/// grid: the decoder's annotation grid. Results on the images' device.
std::vector<ObjectCutOuts> name_cut_out_objects(ItemClassifierImpl& classifier, const torch::Tensor& images,
                                                 std::int64_t grid_h, std::int64_t grid_w,
                                                 const CutOutViews& views = {});

}  // namespace fovea
