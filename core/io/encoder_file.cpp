#include "core/io/encoder_file.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "core/runtime/torch_compat.h"

namespace fovea {

namespace {

constexpr const char* kFormat = "fovea-encoder";

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

std::string list(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
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

EncoderFileInfo read_encoder_file_info(const std::string& path) {
  const auto header = read_checkpoint_header(path);
  if (header.value("format", std::string()) != kFormat) {
    throw CheckpointError(path + ": a Fovea checkpoint, not an encoder file (write one with fovea pretrain-encoder)");
  }
  EncoderFileInfo info;
  try {
    info.widths = header.at("encoder_widths").get<std::vector<std::int64_t>>();
    info.strides = header.at("encoder_strides").get<std::vector<std::int64_t>>();
    info.centred_cells = header.at("centred_cells").get<bool>();
    info.image_size = header.at("image_size").get<std::int64_t>();
    info.pretraining = header.value("pretraining", nlohmann::json::object());
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(path + ": bad encoder description in header: " + e.what());
  }
  return info;
}

bool is_encoder_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  if (!in.read(magic, sizeof(magic)) || std::string(magic, sizeof(magic)) != "FOVEACKP") return false;
  try {
    return read_checkpoint_header(path).value("format", std::string()) == kFormat;
  } catch (const std::exception&) {
    return false;
  }
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

std::string encoder_file_mismatch(const std::string& path, const EncoderFileInfo& info,
                                  const std::vector<std::int64_t>& widths, const std::vector<std::int64_t>& strides,
                                  bool centred_cells) {
  if (info.widths == widths && info.strides == strides && info.centred_cells == centred_cells) return {};
  return path + ": its CNN (blocks of width " + list(info.widths) + ", strides " + list(info.strides) +
         ") is not this run's (" + list(widths) + ", strides " + list(strides) +
         "): leave --encoder-widths out, or pass --backbone none for an untrained CNN of your own";
}

std::string describe_backbone(const std::string& path) {
  if (path.empty()) return "the built-in CNN, untrained";
  if (!std::filesystem::exists(path)) return path + ": file not found";
  if (!is_encoder_file(path)) return "TorchScript CNN " + path;
  try {
    const auto info = read_encoder_file_info(path);
    std::ostringstream s;
    s << "the built-in CNN (widths " << list(info.widths) << ") pretrained";
    const auto& p = info.pretraining;
    if (p.contains("steps")) s << " " << p.at("steps").get<std::int64_t>() << " steps";
    if (p.contains("items")) s << " on " << p.at("items").get<std::string>();
    if (p.value("held_out_accuracy", -1.0) >= 0) {
      s << "; held-out items named right " << std::fixed << std::setprecision(1)
        << 100 * p.at("held_out_accuracy").get<double>() << "%";
    }
    s << " (" << path << ")";
    return s.str();
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace fovea
