#include "core/model/checkpoint.h"

#include "core/runtime/error_text.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/crc32.h"
#include "core/io/fovea_file.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) { fovea_file_error(path, what); }

/// The archive entry holding a TorchScript backbone's file, byte for byte.
constexpr const char* kBackboneEntry = "backbone/torchscript";

/// Whether the backbone's weights are those of its embedded bytes: it did not train, so the file
/// holds them once, inside the bytes. A fine-tuned backbone's weights are stored beside them.
bool backbone_weights_in_bytes(const ModelConfig& c) { return c.backbone_bytes && !c.backbone_trainable; }

std::vector<std::pair<std::string, torch::Tensor>> named_state(CaptionModel& m, bool with_backbone) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : m.net->named_parameters()) out.emplace_back(p.key(), p.value());
  for (const auto& b : m.net->named_buffers()) out.emplace_back(b.key(), b.value());
  if (!with_backbone) return out;
  for (auto& [name, t] : m.net->encoder->backbone_parameters()) out.emplace_back("encoder.backbone." + name, t);
  return out;
}

torch::Tensor bytes_tensor(const std::string& bytes) {
  auto t = torch::empty({std::int64_t(bytes.size())}, torch::kUInt8);
  if (!bytes.empty()) std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

/// A backbone named by path in a file that does not embed it (written before model files held
/// their backbone): found as given when absolute, else beside the model file, then in the
/// current folder. Throws naming each place tried and how to embed it.
std::shared_ptr<const std::string> find_backbone_file(const std::string& model_path, const std::string& backbone) {
  namespace fs = std::filesystem;
  std::vector<fs::path> tried;
  const fs::path named(backbone);
  if (named.is_absolute()) {
    tried.push_back(named);
  } else {
    tried.push_back(fs::absolute(fs::path(model_path).parent_path() / named).lexically_normal());
    tried.push_back(fs::absolute(named).lexically_normal());
  }
  std::error_code ec;
  for (const auto& place : tried) {
    if (!fs::is_regular_file(place, ec)) continue;
    std::ifstream in(place, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.good() || in.eof()) return std::make_shared<const std::string>(bytes.str());
  }
  std::string places;
  for (const auto& place : tried) places += (places.empty() ? "" : ", ") + place.string();
  fail(model_path, "its TorchScript backbone " + backbone + " is not in the file and was not found (tried " + places +
                       "); put the backbone there, or embed it once: fovea embed-backbone " + model_path + " BACKBONE.pt");
}

}  // namespace

nlohmann::json describe_embedded_backbone(const ModelConfig& c) {
  if (!c.backbone_bytes) return nullptr;
  const auto& bytes = *c.backbone_bytes;
  return {{"file", std::filesystem::path(c.backbone_path).filename().string()},
          {"bytes", bytes.size()},
          {"digest", content_digest(crc32_of(bytes.data(), bytes.size()), bytes.size())},
          {"grid", {c.grid_h, c.grid_w, c.annotation_dim}}};
}

void save_checkpoint(const std::string& path, CaptionModel& model, const SaveOptions& options) {
  torch::serialize::OutputArchive archive;
  const bool embeds = model.config.backbone_bytes != nullptr;
  for (auto& [name, t] : named_state(model, !backbone_weights_in_bytes(model.config))) {
    archive.write("model/" + name, t.detach().to(torch::kCPU));
  }
  if (embeds) archive.write(kBackboneEntry, bytes_tensor(*model.config.backbone_bytes));
  if (options.optimizer) {
    torch::serialize::OutputArchive opt;
    options.optimizer->save(opt);
    archive.write("optimizer", opt);
  }
  if (options.rng_state) archive.write("rng/cpu", compat::cpu_rng_state());
  for (const auto& [name, t] : options.extra) archive.write("extra/" + name, t.detach().to(torch::kCPU));
  nlohmann::json header = {{"format", "fovea-checkpoint"},
                                 {"model", to_json(model.config)},
                                 {"vocabulary", model.vocab.to_json()},
                                 {"has_optimizer", options.optimizer != nullptr},
                                 {"training", options.training},
                                 {"torch_version", compat::torch_version()}};
  if (embeds) header["backbone"] = describe_embedded_backbone(model.config);
  write_fovea_file(path, header, archive);
}

LoadedCheckpoint load_checkpoint(const std::string& path, torch::Device device, const std::string& backbone_file) {
  FoveaFile p = read_fovea_file(path);
  if (p.header.value("format", std::string()) == "fovea-encoder") {
    fail(path, "is an encoder file (fovea pretrain-encoder), not a captioning model: train from it with "
               "fovea train --backbone " + path);
  }
  LoadedCheckpoint out;
  out.path = path;
  ModelConfig config;
  Vocabulary vocab;
  try {
    config = model_config_from_json(p.header.at("model"));
    vocab = Vocabulary::from_json(p.header.at("vocabulary"));
  } catch (const std::exception& e) {
    fail(path, std::string("bad model description in header: ") + error_text(e));
  }
  if (config.vocab_size != vocab.size()) {
    fail(path, "config says " + std::to_string(config.vocab_size) + " words but the vocabulary holds " +
                   std::to_string(vocab.size()));
  }
  torch::serialize::InputArchive archive;
  try {
    std::istringstream in(p.archive);
    archive.load_from(in);
  } catch (const c10::Error& e) {
    fail(path, std::string("corrupt weights archive (") + e.what_without_backtrace() + ")");
  }
  if (!config.backbone_path.empty()) {
    torch::Tensor bytes;
    if (archive.try_read(kBackboneEntry, bytes)) {
      bytes = bytes.to(torch::kUInt8).contiguous();
      config.backbone_bytes =
          std::make_shared<const std::string>(static_cast<const char*>(bytes.data_ptr()), std::size_t(bytes.numel()));
    } else {
      config.backbone_bytes = find_backbone_file(path, backbone_file.empty() ? config.backbone_path : backbone_file);
    }
  }
  const ModelConfig stored = config;
  try {
    out.model = CaptionModel::create(config, std::move(vocab), torch::kCPU);
  } catch (const std::exception& e) {
    fail(path, std::string("cannot build the model it describes: ") + error_text(e));
  }
  const auto diffs = config_differences(stored, out.model.config);
  if (!diffs.empty()) {
    std::string d;
    for (const auto& s : diffs) d += (d.empty() ? "" : "; ") + s;
    fail(path, "the stored model config disagrees with the encoder it builds (" + d + ")");
  }
  {
    torch::NoGradGuard no_grad;
    for (auto& [name, t] : named_state(out.model, true)) {
      torch::Tensor stored_t;
      if (!archive.try_read("model/" + name, stored_t)) {
        // A backbone that did not train has its weights in its embedded bytes.
        if (name.rfind("encoder.backbone.", 0) == 0 && p.header.contains("backbone")) continue;
        fail(path, "weights for '" + name + "' are missing");
      }
      if (stored_t.sizes() != t.sizes()) {
        std::ostringstream msg;
        msg << "weights for '" << name << "' have shape " << stored_t.sizes() << " but the model config needs "
            << t.sizes();
        fail(path, msg.str());
      }
      t.copy_(stored_t);
    }
  }
  out.backbone_embedded = p.header.contains("backbone");
  out.training = p.header.value("training", nlohmann::json());
  out.has_optimizer = p.header.value("has_optimizer", false);
  out.archive = std::move(p.archive);
  out.model.device = device;
  out.model.net->to(device);
  out.model.net->encoder->to_device(device);
  out.model.net->eval();
  return out;
}

std::vector<torch::Tensor> read_checkpoint_extra(const LoadedCheckpoint& ckpt, const std::vector<std::string>& names,
                                                 torch::Device device) {
  torch::serialize::InputArchive archive;
  std::istringstream in(ckpt.archive);
  archive.load_from(in, device);
  std::vector<torch::Tensor> out;
  for (const auto& name : names) {
    torch::Tensor t;
    if (!archive.try_read("extra/" + name, t)) fail(ckpt.path, "'" + name + "' is missing");
    out.push_back(t);
  }
  return out;
}

void restore_training_state(const LoadedCheckpoint& ckpt, torch::optim::Optimizer& optimizer, torch::Device device) {
  if (!ckpt.has_optimizer) fail(ckpt.path, "holds weights only, no optimizer state to resume from");
  torch::serialize::InputArchive archive;
  std::istringstream in(ckpt.archive);
  archive.load_from(in, device);
  try {
    torch::serialize::InputArchive opt;
    archive.read("optimizer", opt);
    optimizer.load(opt);
  } catch (const c10::Error& e) {
    fail(ckpt.path, std::string("optimizer state does not match this model (") + e.what_without_backtrace() + ")");
  }
  torch::Tensor rng;
  if (archive.try_read("rng/cpu", rng)) compat::set_cpu_rng_state(rng.to(torch::kCPU));
}

}  // namespace fovea
