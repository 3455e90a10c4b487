#include "core/model/encoder_file.h"

#include <sstream>

#include "core/io/fovea_file.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

namespace {

constexpr const char* kFormat = "fovea-encoder";  // the header's "format"

/// The parameters and buffers an encoder file holds: the built-in CNN's and the auxiliary heads'.
bool in_encoder_file(const std::string& name) {
  return name.rfind("encoder.", 0) == 0 || name.rfind("aux_class.", 0) == 0 || name.rfind("aux_colour.", 0) == 0;
}

std::vector<std::pair<std::string, torch::Tensor>> encoder_state(CaptionModel& m) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : m.net->named_parameters()) {
    if (in_encoder_file(p.key())) out.emplace_back(p.key(), p.value());
  }
  for (const auto& b : m.net->named_buffers()) {
    if (in_encoder_file(b.key())) out.emplace_back(b.key(), b.value());
  }
  return out;
}

}  // namespace

void save_encoder_file(const std::string& path, CaptionModel& model, const nlohmann::json& pretraining) {
  if (model.net->encoder->has_backbone()) {
    throw std::invalid_argument("an encoder file holds Fovea's built-in CNN; this model runs a TorchScript backbone");
  }
  torch::serialize::OutputArchive archive;
  for (auto& [name, t] : encoder_state(model)) archive.write(name, t.detach().to(torch::kCPU));
  const nlohmann::json header = {{"format", kFormat},
                                 {"encoder_widths", model.config.encoder_widths},
                                 {"encoder_strides", model.config.block_strides()},
                                 {"centred_cells", model.config.centred_cells},
                                 {"image_size", model.config.image_size},
                                 {"pretraining", pretraining},
                                 {"torch_version", compat::torch_version()}};
  write_fovea_file(path, header, archive);
}

void load_encoder_file(const std::string& path, CaptionModel& model) {
  const auto info = read_encoder_file_info(path);
  const auto& c = model.config;
  if (model.net->encoder->has_backbone()) throw std::invalid_argument("a TorchScript backbone cannot load " + path);
  if (const auto error = encoder_file_mismatch(path, info, c.encoder_widths, c.block_strides(), c.centred_cells);
      !error.empty()) {
    throw CheckpointError(error);
  }
  const auto file = read_fovea_file(path);
  torch::serialize::InputArchive archive;
  try {
    std::istringstream in(file.archive);
    archive.load_from(in);
  } catch (const c10::Error& e) {
    throw CheckpointError(path + ": corrupt weights archive (" + e.what_without_backtrace() + ")");
  }
  torch::NoGradGuard no_grad;
  for (auto& [name, t] : encoder_state(model)) {
    torch::Tensor stored;
    if (!archive.try_read(name, stored)) throw CheckpointError(path + ": weights for '" + name + "' are missing");
    if (stored.sizes() != t.sizes()) {
      std::ostringstream msg;
      msg << path << ": weights for '" << name << "' have shape " << stored.sizes() << ", this run's CNN needs "
          << t.sizes();
      throw CheckpointError(msg.str());
    }
    t.copy_(stored.to(t.device(), t.scalar_type()));
  }
}

}  // namespace fovea
