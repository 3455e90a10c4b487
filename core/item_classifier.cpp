#include "core/item_classifier.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/encoder_pretraining.h"
#include "core/object_segments.h"

namespace fovea {

namespace {

/// The pretraining's canvas side for a model taking image_size px images.
std::int64_t canvas_side(std::int64_t image_size) {
  FashionScenesOptions o;
  o.image_size = int(image_size);
  return single_item_options(o).image_size;
}

/// (3, S, S) floats in [0, 1] back to the 8-bit image they were made from.
RgbImage to_rgb(const torch::Tensor& chw) {
  const auto hwc = chw.detach().to(torch::kCPU).mul(255.0).round().clamp(0, 255).to(torch::kUInt8).permute({1, 2, 0}).contiguous();
  RgbImage out(int(hwc.size(1)), int(hwc.size(0)));
  std::memcpy(out.pixels.data(), hwc.data_ptr<std::uint8_t>(), out.pixels.size());
  return out;
}

torch::Tensor to_tensor(const RgbImage& image) {
  auto hwc = torch::from_blob(const_cast<std::uint8_t*>(image.pixels.data()), {image.height, image.width, 3}, torch::kUInt8);
  return hwc.permute({2, 0, 1}).to(torch::kFloat32).div(255.0);
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
  torch::NoGradGuard no_grad;
  auto copy = [](torch::nn::Module& to, torch::nn::Module& from) {
    auto params = from.named_parameters(), buffers = from.named_buffers();
    for (auto& p : to.named_parameters()) p.value().copy_(params[p.key()]);
    for (auto& b : to.named_buffers()) b.value().copy_(buffers[b.key()]);
  };
  copy(*encoder_, encoder);
  copy(*class_head_, class_head);
  filled_.fill_(1.0);
}

torch::Tensor ItemClassifierImpl::classify(const torch::Tensor& canvases, const torch::Tensor& cells) {
  torch::NoGradGuard no_grad;
  const auto annotations = encoder_->forward(canvases);                                  // (N, L, D)
  const auto weights = cells / cells.sum(1, true).clamp_min(1e-6);                       // (N, L)
  const auto pooled = torch::bmm(weights.unsqueeze(1), annotations).squeeze(1);          // (N, D)
  return torch::softmax(class_head_->forward(pooled).slice(1, 1), 1);                    // background left out
}

torch::Tensor box_cells(int x0, int y0, int x1, int y1, int side, std::int64_t grid_h, std::int64_t grid_w) {
  auto cells = torch::zeros({grid_h * grid_w});
  auto* c = cells.data_ptr<float>();
  const double ch = double(side) / double(grid_h), cw = double(side) / double(grid_w);
  bool any = false;
  for (std::int64_t r = 0; r < grid_h; ++r) {
    for (std::int64_t k = 0; k < grid_w; ++k) {
      const double cx = (double(k) + 0.5) * cw, cy = (double(r) + 0.5) * ch;
      if (cx >= x0 && cx < x1 && cy >= y0 && cy < y1) c[r * grid_w + k] = 1, any = true;
    }
  }
  if (!any) {
    const auto r = std::clamp<std::int64_t>(std::int64_t((y0 + y1) * 0.5 / ch), 0, grid_h - 1);
    const auto k = std::clamp<std::int64_t>(std::int64_t((x0 + x1) * 0.5 / cw), 0, grid_w - 1);
    c[r * grid_w + k] = 1;
  }
  return cells;
}

std::vector<ObjectCutOuts> name_cut_out_objects(ItemClassifierImpl& classifier, const torch::Tensor& images,
                                                 std::int64_t grid_h, std::int64_t grid_w) {
  torch::NoGradGuard no_grad;
  const auto device = images.device();
  const int canvas = int(classifier.canvas());
  const auto canvas_grid = canvas / 8;
  SegmentOptions segments;
  segments.max_side = canvas;
  segments.merge_gap = 2;             // a garment split by its dark parts is one object...
  segments.merge_side = canvas - 4;   // ... no larger than the largest item the canvases hold
  std::vector<ObjectCutOuts> out(std::size_t(images.size(0)));
  std::vector<torch::Tensor> canvases, canvas_cells;
  std::vector<std::size_t> owner;  // image of each object
  for (std::int64_t i = 0; i < images.size(0); ++i) {
    const RgbImage image = to_rgb(images[i]);
    const int background = background_level(image);
    std::vector<torch::Tensor> cells;
    for (const auto& s : segment_objects(image, segments)) {
      for (const bool mirror : {false, true}) {
        int box[4];
        canvases.push_back(to_tensor(cut_out(image, s, canvas, mirror, background, box)));
        canvas_cells.push_back(box_cells(box[0], box[1], box[2], box[3], canvas, canvas_grid, canvas_grid));
      }
      cells.push_back(box_cells(s.x0, s.y0, s.x1, s.y1, image.width, grid_h, grid_w));
      owner.push_back(std::size_t(i));
    }
    if (!cells.empty()) out[std::size_t(i)].cells = torch::stack(cells).to(device);
  }
  if (owner.empty()) return out;
  const auto probs = classifier.classify(torch::stack(canvases).to(device), torch::stack(canvas_cells).to(device));
  const auto averaged = probs.view({std::int64_t(owner.size()), 2, probs.size(1)}).mean(1);  // image and mirror
  std::int64_t begin = 0;
  for (auto& o : out) {
    const auto n = o.count();
    if (n > 0) o.classes = averaged.narrow(0, begin, n);
    begin += n;
  }
  return out;
}

}  // namespace fovea
