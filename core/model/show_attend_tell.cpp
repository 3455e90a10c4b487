#include "core/model/show_attend_tell.h"

namespace fovea {

ShowAttendTellImpl::ShowAttendTellImpl(ModelConfig& config) {
  config.validate();
  encoder = register_module("encoder", Encoder(config));
  decoder = register_module("decoder", Decoder(config));
  aux_class = register_module("aux_class", torch::nn::Linear(config.annotation_dim, kAuxClasses));
  aux_colour = register_module("aux_colour", torch::nn::Linear(config.annotation_dim, kAuxColours));
}

std::pair<torch::Tensor, torch::Tensor> ShowAttendTellImpl::auxiliary_logits(const torch::Tensor& annotations) {
  return {aux_class(annotations), aux_colour(annotations)};
}

DecoderOutput ShowAttendTellImpl::forward(const torch::Tensor& images, const torch::Tensor& tokens,
                                          const torch::Tensor& lengths, const torch::Tensor& sample) {
  return decoder->forward(encode(images), tokens, lengths, sample);
}

std::vector<torch::Tensor> ShowAttendTellImpl::trainable_parameters() {
  std::vector<torch::Tensor> params;
  for (auto& p : parameters()) {
    if (p.requires_grad()) params.push_back(p);
  }
  for (auto& [name, p] : encoder->backbone_parameters()) {
    if (p.requires_grad()) params.push_back(p);
  }
  return params;
}

CaptionModel CaptionModel::create(ModelConfig config, Vocabulary vocab, torch::Device device) {
  config.vocab_size = vocab.size();
  CaptionModel m;
  m.net = ShowAttendTell(config);  // fills in annotation_dim and grid
  m.config = config;
  m.vocab = std::move(vocab);
  m.device = device;
  m.net->to(device);
  m.net->encoder->to_device(device);
  return m;
}

}  // namespace fovea
