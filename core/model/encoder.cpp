#include "core/model/encoder.h"

#include <torch/script.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/model/batch_norm_relu.h"
#include "core/model/bf16_convolution.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

namespace nn = torch::nn;

namespace {

/// Each block of the built-in CNN is a convolution, a batch norm and a ReLU: three modules.
constexpr std::size_t kModulesPerBlock = 3;
/// Index in the built-in CNN of the module that is the third strided convolution: with centred
/// cells it pads only on the right and bottom (done in forward(), so parameter names match older
/// checkpoints).
std::size_t third_strided_conv(const std::vector<std::int64_t>& strides) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < strides.size(); ++i) {
    if (strides[i] == 2 && ++seen == 3) return i * kModulesPerBlock;
  }
  return std::size_t(-1);
}

nn::Sequential builtin_cnn(const std::vector<std::int64_t>& widths, const std::vector<std::int64_t>& strides,
                           bool centred_cells) {
  nn::Sequential seq;
  std::int64_t in = 3;
  const auto third = third_strided_conv(strides);
  for (std::size_t i = 0; i < widths.size(); ++i) {
    // Three blocks halve the resolution with a strided convolution (stride 8 in all; by default
    // the first three): cheaper than convolving at full resolution and pooling, with the same
    // receptive field. A 3x3, stride-2 convolution padded by one on each side is centred half an
    // input unit before the middle of the two units it replaces (-0.5, -1 and -2 px for the three
    // blocks: -3.5 px, almost half a cell). Padding the third only after its input moves that one
    // +2 px instead: +0.5 px in all.
    const std::int64_t stride = strides[i];
    const std::int64_t padding = (centred_cells && i * kModulesPerBlock == third) ? 0 : 1;
    seq->push_back(nn::Conv2d(nn::Conv2dOptions(in, widths[i], 3).stride(stride).padding(padding).bias(false)));
    seq->push_back(nn::BatchNorm2d(widths[i]));
    seq->push_back(nn::ReLU());
    static_assert(kModulesPerBlock == 3, "a block is the three modules above");
    in = widths[i];
  }
  return seq;
}
/// The bytes of the TorchScript file at `path`; throws naming it when it cannot be read.
std::shared_ptr<const std::string> read_backbone_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read the TorchScript backbone (no such file, or not readable)");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in.good() && !in.eof()) throw std::runtime_error(path + ": cannot read the TorchScript backbone");
  return std::make_shared<const std::string>(bytes.str());
}

/// A block's convolution. Trained under CPU bf16 autocast, its forward runs in bf16 and its
/// backward in the precision this CPU runs faster (core/model/bf16_convolution.h); otherwise the
/// module as it is.
torch::Tensor convolve(nn::Conv2dImpl& conv, const torch::Tensor& x) {
  const bool trained = torch::GradMode::is_enabled() && conv.weight.requires_grad();
  const auto* padding = compat::explicit_padding(conv.options);
  const auto dilation = *conv.options.dilation();
  if (!(trained && x.is_cpu() && compat::cpu_autocast_enabled() && !conv.bias.defined() && padding != nullptr &&
        dilation[0] == 1 && dilation[1] == 1 && conv.options.groups() == 1)) {
    return conv.forward(x);
  }
  return bf16_convolution(x, conv.weight, *conv.options.stride(), **padding);
}

}  // namespace

EncoderImpl::EncoderImpl(ModelConfig& config)
    : trainable_(config.backbone_trainable), centred_cells_(config.centred_cells) {
  torch::Tensor probe = torch::zeros({1, 3, config.image_size, config.image_size});
  if (config.backbone_path.empty()) {
    const auto strides = config.block_strides();
    third_strided_conv_ = third_strided_conv(strides);
    cnn_ = register_module("cnn", builtin_cnn(config.encoder_widths, strides, config.centred_cells));
  } else {
    if (!config.backbone_bytes) config.backbone_bytes = read_backbone_file(config.backbone_path);
    try {
      std::istringstream in(*config.backbone_bytes);
      backbone_ = std::make_unique<torch::jit::Module>(torch::jit::load(in));
    } catch (const c10::Error& e) {
      throw std::runtime_error(config.backbone_path + ": not a loadable TorchScript module (" +
                               std::string(e.what_without_backtrace()) + ")");
    }
    for (auto p : backbone_->parameters()) p.set_requires_grad(trainable_);
  }
  torch::NoGradGuard no_grad;
  const bool was_training = is_training();
  eval();
  torch::Tensor out;
  try {
    out = forward(probe);
  } catch (const c10::Error& e) {
    throw std::runtime_error("encoder: forward of a " + std::to_string(config.image_size) + "px image failed (" +
                             std::string(e.what_without_backtrace()) + ")");
  }
  train(was_training);
  images_encoded_ = 0;  // the check above is not an image of the user's
  // A broken backbone is named here, not found later as a NaN loss blamed on the learning rate.
  const std::string which = config.backbone_path.empty() ? std::string("the built-in CNN") : config.backbone_path;
  if (out.size(1) == 0 || out.size(2) == 0) {
    throw std::runtime_error(which + ": returns an empty grid (" + std::to_string(out.size(1)) + " cells of " +
                             std::to_string(out.size(2)) + " channels) for a " + std::to_string(config.image_size) + "px image");
  }
  if (!torch::isfinite(out).all().item<bool>()) {
    throw std::runtime_error(which + ": its output for a blank " + std::to_string(config.image_size) +
                             "px image is not finite (NaN or infinity)");
  }
  config.annotation_dim = out.size(2);
  // forward() flattens; recover the grid from the raw feature map.
  if (backbone_) {
    auto fm = backbone_->forward({probe}).toTensor();
    config.grid_h = fm.size(2), config.grid_w = fm.size(3);
  } else {
    config.grid_h = config.grid_w = config.image_size / 8;
  }
}

EncoderImpl::~EncoderImpl() = default;

torch::Tensor EncoderImpl::forward(const torch::Tensor& images) {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == 3, "encoder input must be (B, 3, H, W), got ", images.sizes());
  images_encoded_ += images.size(0);
  torch::Tensor fm;
  if (backbone_) {
    if (!trainable_) {
      torch::NoGradGuard no_grad;
      backbone_->eval();
      fm = backbone_->forward({images}).toTensor();
    } else {
      backbone_->train(is_training());
      fm = backbone_->forward({images}).toTensor();
    }
    TORCH_CHECK(fm.dim() == 4, "TorchScript backbone must return (B, D, H, W), got ", fm.sizes());
  } else {
    fm = (images - 0.25) / 0.3;
    // Channels-last on the CPU: oneDNN convolves NHWC without reordering every layer's input and
    // output, and the (B, L, D) annotations below are then a view.
    if (fm.is_cpu()) fm = fm.contiguous(at::MemoryFormat::ChannelsLast);
    // Every block frozen: the encoder does not train, and is a fixed function of its image
    // (running statistics, as in eval) whose annotations can be computed once
    // (core/data/annotation_cache.h), not one that depends on the rest of its batch.
    struct EvalWhileFrozen {
      torch::nn::Sequential& cnn;
      bool active;
      ~EvalWhileFrozen() {
        if (active) cnn->train();
      }
    } eval_while_frozen{cnn_, frozen_modules_ == cnn_->size() && cnn_->is_training()};
    if (eval_while_frozen.active) cnn_->eval();
    const auto modules = cnn_->begin();
    for (std::size_t first = 0; first < cnn_->size(); first += kModulesPerBlock) {
      std::optional<torch::NoGradGuard> frozen;
      if (first < frozen_modules_) frozen.emplace();
      if (centred_cells_ && first == third_strided_conv_) fm = torch::constant_pad_nd(fm, {0, 1, 0, 1});
      fm = convolve(*cnn_->ptr(first)->as<nn::Conv2dImpl>(), fm);
      if (batch_norm_relu_applies(fm)) {
        batch_norm_relu_(fm, *cnn_->ptr(first + 1)->as<nn::BatchNorm2dImpl>());
      } else {
        fm = modules[first + 2].forward(modules[first + 1].forward(fm));
      }
    }
  }
  return fm.flatten(2).transpose(1, 2).contiguous();  // (B, L, D)
}

std::int64_t EncoderImpl::blocks() const { return cnn_ ? std::int64_t(cnn_->size() / kModulesPerBlock) : 0; }

void EncoderImpl::freeze_blocks(std::int64_t blocks) {
  TORCH_CHECK(blocks >= 0 && blocks <= this->blocks(), "cannot freeze ", blocks, " blocks of an encoder with ",
              this->blocks());
  frozen_modules_ = std::size_t(blocks) * kModulesPerBlock;
  // Gradients an earlier phase left (the encoder pretraining) would still move them through Adam.
  for (std::size_t i = 0; i < frozen_modules_; ++i) {
    for (auto& p : cnn_->ptr(i)->parameters()) p.mutable_grad() = torch::Tensor();
  }
}

std::vector<std::pair<std::string, torch::Tensor>> EncoderImpl::backbone_parameters() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  if (!backbone_) return out;
  for (const auto& p : backbone_->named_parameters()) out.emplace_back(p.name, p.value);
  return out;
}

void EncoderImpl::to_device(const torch::Device& device) {
  to(device);
  if (backbone_) backbone_->to(device);
}

}  // namespace fovea
