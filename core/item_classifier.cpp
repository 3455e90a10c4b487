#include "core/item_classifier.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/batching.h"
#include "core/encoder_pretraining.h"
#include "core/image_tensor.h"
#include "core/module_state.h"
#include "core/object_segments.h"

namespace fovea {

namespace {

/// The pretraining's canvas side for a model taking image_size px images.
std::int64_t canvas_side(std::int64_t image_size) {
  FashionScenesOptions o;
  o.image_size = int(image_size);
  return single_item_options(o).image_size;
}

/// 1 on the cells of a side x side image's grid under the box (cells_in_box), else 0.
torch::Tensor box_cells(int x0, int y0, int x1, int y1, int side, std::int64_t grid_h, std::int64_t grid_w) {
  auto cells = torch::zeros({grid_h * grid_w});
  auto* c = cells.data_ptr<float>();
  for (const auto cell : cells_in_box(x0, y0, x1, y1, side, side, grid_h, grid_w)) c[cell] = 1;
  return cells;
}

/// (3, S, S) floats in [0, 1] back to the 8-bit image they were made from.
RgbImage to_rgb(const torch::Tensor& chw) {
  const auto hwc = chw.detach().to(torch::kCPU).mul(255.0).round().clamp(0, 255).to(torch::kUInt8).permute({1, 2, 0}).contiguous();
  RgbImage out(int(hwc.size(1)), int(hwc.size(0)));
  std::memcpy(out.pixels.data(), hwc.data_ptr<std::uint8_t>(), out.pixels.size());
  return out;
}

}  // namespace

ItemClassifierImpl::ItemClassifierImpl(ModelConfig config, std::int64_t classes) {
  config.backbone_path.clear();
  canvas_ = canvas_side(config.image_size);
  encoder_ = register_module("encoder", Encoder(config));
  class_head_ = register_module("class_head", torch::nn::Linear(config.annotation_dim, classes + 1));
  filled_ = register_buffer("filled", torch::zeros({}));
  for (auto& p : parameters()) p.set_requires_grad(false);
  torch::nn::Module::train(false);
}

void ItemClassifierImpl::train(bool /*on*/) { torch::nn::Module::train(false); }

bool ItemClassifierImpl::filled() const { return filled_.item<float>() > 0.5f; }

void ItemClassifierImpl::copy_from(torch::nn::Module& encoder, torch::nn::Module& class_head) {
  copy_matching_state(*encoder_, encoder);
  copy_matching_state(*class_head_, class_head);
  torch::NoGradGuard no_grad;
  filled_.fill_(1.0);
}

torch::Tensor ItemClassifierImpl::classify(const torch::Tensor& canvases, const torch::Tensor& cells) {
  torch::NoGradGuard no_grad;
  const auto annotations = encoder_->forward(canvases);                                  // (N, L, D)
  const auto weights = cells / cells.sum(1, true).clamp_min(1e-6);                       // (N, L)
  const auto pooled = torch::bmm(weights.unsqueeze(1), annotations).squeeze(1);          // (N, D)
  return torch::softmax(class_head_->forward(pooled).slice(1, 1), 1);                    // background left out
}

std::vector<ObjectCutOuts> name_cut_out_objects(ItemClassifierImpl& classifier, const torch::Tensor& images,
                                                 std::int64_t grid_h, std::int64_t grid_w, const CutOutViews& views) {
  torch::NoGradGuard no_grad;
  const auto device = images.device();
  const int canvas = int(classifier.canvas());
  const auto canvas_grid = canvas / 8;
  SegmentOptions segments;
  segments.max_side = canvas;
  segments.merge_gap = 2;             // a garment split by its dark parts is one object...
  segments.merge_side = canvas - 4;   // ... no larger than the largest item the canvases hold
  std::vector<ObjectCutOuts> out(std::size_t(images.size(0)));
  std::vector<std::pair<int, int>> shifts = {{0, 0}};
  if (views.shift > 0) {
    for (const int sx : {-views.shift, views.shift}) {
      for (const int sy : {-views.shift, views.shift}) shifts.emplace_back(sx, sy);
    }
  }
  const auto per_object = std::int64_t(2 * shifts.size());
  std::vector<RgbImage> canvases;  // each object's views, in turn
  std::vector<torch::Tensor> canvas_cells;
  std::int64_t objects = 0;
  for (std::int64_t i = 0; i < images.size(0); ++i) {
    const RgbImage image = to_rgb(images[i]);
    const int background = background_level(image);
    std::vector<torch::Tensor> cells;
    for (const auto& s : segment_objects(image, segments)) {
      for (const bool mirror : {false, true}) {
        for (const auto& [sx, sy] : shifts) {
          int box[4];
          canvases.push_back(cut_out(image, s, canvas, mirror, background, box, sx, sy));
          canvas_cells.push_back(box_cells(box[0], box[1], box[2], box[3], canvas, canvas_grid, canvas_grid));
        }
      }
      cells.push_back(box_cells(s.x0, s.y0, s.x1, s.y1, image.width, grid_h, grid_w));
      ++objects;
    }
    if (!cells.empty()) out[std::size_t(i)].cells = torch::stack(cells).to(device);
  }
  if (objects == 0) return out;
  std::vector<const RgbImage*> ptrs;
  for (const auto& c : canvases) ptrs.push_back(&c);
  const auto probs = classifier.classify(images_to_tensor(ptrs, canvas).to(device), torch::stack(canvas_cells).to(device));
  const auto averaged = probs.view({objects, per_object, probs.size(1)}).mean(1);
  std::int64_t begin = 0;
  for (auto& o : out) {
    const auto n = o.count();
    if (n > 0) o.classes = averaged.narrow(0, begin, n);
    begin += n;
  }
  return out;
}

}  // namespace fovea
