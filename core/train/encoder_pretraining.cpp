#include "core/train/encoder_pretraining.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/data/batching.h"
#include "core/train/data_parallel.h"
#include "core/train/fused_adam.h"
#include "core/train/objectives.h"

namespace fovea {

FashionScenesOptions single_item_options(const FashionScenesOptions& scenes) {
  FashionScenesOptions o = with_item_sizes(scenes);
  o.min_objects = o.max_objects = 1;
  o.image_size = (o.max_item_size + 4 + 7) / 8 * 8;
  return o;
}

double pretraining_lr(double peak, std::int64_t k, std::int64_t steps) {
  steps = std::max<std::int64_t>(1, steps);
  const auto warm = std::max<std::int64_t>(1, std::min<std::int64_t>(200, steps / 10));
  if (k < warm) return peak * double(k + 1) / double(warm);
  const double f = double(k - warm) / double(std::max<std::int64_t>(1, steps - 1 - warm));
  return peak * (0.05 + 0.95 * 0.5 * (1.0 + std::cos(M_PI * std::min(1.0, f))));
}

EncoderPretraining::EncoderPretraining(ShowAttendTell net, const Vocabulary& vocab, const FashionScenes& scenes,
                                       const PretrainingOptions& options, torch::Device device, bool bf16,
                                       std::uint64_t seed)
    : net_(std::move(net)), vocab_(vocab), options_(options), device_(device), bf16_(bf16), seed_(seed) {
  items_ = std::make_unique<FashionScenes>("train", std::size_t(options.steps * options.batch), scenes.items(),
                                           single_item_options(scenes.options()));
  std::vector<torch::Tensor> params = net_->encoder->parameters();
  for (auto& p : net_->aux_class->parameters()) params.push_back(p);
  for (auto& p : net_->aux_colour->parameters()) params.push_back(p);
  std::vector<torch::Tensor> trainable;
  for (auto& p : params) {
    if (p.requires_grad()) trainable.push_back(p);
  }
  optimizer_ = std::make_unique<FusedAdam>(trainable, torch::optim::AdamOptions(options.lr));
  if (options.group != nullptr && options.batch % options.group->size() != 0) {
    throw std::invalid_argument("the encoder pretraining's batch (" + std::to_string(options.batch) +
                                " items) does not divide among " + std::to_string(options.group->size()) +
                                " processes: pretrain with a number of processes that divides " +
                                std::to_string(options.batch));
  }
}

EncoderPretraining::~EncoderPretraining() = default;

std::string EncoderPretraining::describe() const {
  const auto& o = items_->options();
  return std::to_string(options_.steps) + " steps of " + std::to_string(options_.batch) + " single training items (" +
         std::to_string(o.min_item_size) + "-" + std::to_string(o.max_item_size) + " px on " +
         std::to_string(o.image_size) + " px canvases)";
}

PretrainStep EncoderPretraining::step(std::int64_t k) {
  const double lr = pretraining_lr(options_.lr, k, options_.steps);
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);
  const auto shard = batch_shard(options_.batch, options_.group);
  std::vector<std::size_t> idx(static_cast<std::size_t>(shard.size));
  std::iota(idx.begin(), idx.end(), std::size_t(k * options_.batch + shard.begin));
  net_->train();
  compat::CpuBf16Autocast autocast(bf16_);
  auto [loss, accuracy] = single_item_loss(net_, vocab_, *items_, idx, seed_, device_);
  autocast.end();
  clear_gradients(*optimizer_);
  loss.backward();
  // Single items: every share holds as many cells and items, so the mean of the shares'
  // gradients is the whole batch's.
  const double processes = options_.group != nullptr ? double(options_.group->size()) : 1.0;
  all_reduce_gradients(options_.group, optimizer_->param_groups().at(0).params(), 1.0 / processes);
  optimizer_->step();
  broadcast_buffers(options_.group, *net_->encoder);
  PretrainStep out;
  out.loss = loss.item<double>();
  out.lr = lr;
  out.accuracy = accuracy.item<double>();
  if (options_.group != nullptr) {
    auto both = torch::tensor({out.loss, out.accuracy}, torch::kDouble);
    options_.group->all_reduce_sum(std::vector<torch::Tensor>{both});
    out.loss = both[0].item<double>() / processes;
    out.accuracy = both[1].item<double>() / processes;
  }
  return out;
}

SingleItemLoss single_item_loss(ShowAttendTell& net, const Vocabulary& vocab, const FashionScenes& canvases,
                                const std::vector<std::size_t>& indices, std::uint64_t seed, torch::Device device) {
  const auto grid = canvases.options().image_size / 8;
  auto batch = make_batch(canvases, indices, vocab, canvases.options().image_size, seed, 0, 1, grid, grid);
  const auto annotations = net->encode(batch.images.to(device));
  if (annotations.size(1) != grid * grid) {
    throw std::runtime_error("single items: the encoder does not map " + std::to_string(grid * 8) + " px canvases to a " +
                             std::to_string(grid) + "x" + std::to_string(grid) + " grid");
  }
  const auto cell_class = batch.cell_class.to(device);
  auto [cls, col] = net->auxiliary_logits(annotations);
  auto [logits, target] = object_class_logits(net->aux_class, annotations, cell_class);
  namespace F = torch::nn::functional;
  SingleItemLoss out;
  out.loss = F::cross_entropy(cls.flatten(0, 1).to(torch::kFloat), cell_class.view({-1})) +
             F::cross_entropy(col.flatten(0, 1).to(torch::kFloat), batch.cell_colour.view({-1}).to(device)) +
             F::cross_entropy(logits, target);
  out.accuracy = logits.detach().argmax(1).eq(target).to(torch::kFloat).mean();
  return out;
}

ClassHeadScore name_objects_with_class_head(ShowAttendTell& net, const Vocabulary& vocab, const SceneSource& source,
                                          std::size_t count, std::int64_t image_size, torch::Device device) {
  count = std::min(count, source.size());
  const auto grid = image_size / 8;
  torch::NoGradGuard no_grad;
  const bool was_training = net->is_training();
  net->eval();
  std::int64_t right = 0, named = 0;
  constexpr std::size_t kChunk = 250;
  for (std::size_t begin = 0; begin < count; begin += kChunk) {
    std::vector<std::size_t> idx(std::min(kChunk, count - begin));
    std::iota(idx.begin(), idx.end(), begin);
    auto batch = make_batch(source, idx, vocab, image_size, 0, 0, 1, grid, grid);
    const auto annotations = net->encode(batch.images.to(device));
    auto [logits, target] = object_class_logits(net->aux_class, annotations, batch.cell_class.to(device));
    if (!logits.defined()) continue;
    right += logits.argmax(1).eq(target).sum().item<std::int64_t>();
    named += target.size(0);
  }
  net->train(was_training);
  ClassHeadScore out;
  out.items = std::size_t(named);
  out.accuracy = named > 0 ? double(right) / double(named) : 0.0;
  return out;
}

ClassHeadScore EncoderPretraining::score_held_out(const FashionScenes& val_scenes, std::size_t count) {
  const FashionScenes held_out("val", count, val_scenes.items(), items_->options());
  return name_objects_with_class_head(net_, vocab_, held_out, count, held_out.options().image_size, device_);
}

}  // namespace fovea
