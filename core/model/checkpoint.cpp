#include "core/model/checkpoint.h"

#include "core/runtime/error_text.h"

#include <sstream>

#include "core/io/fovea_file.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) { fovea_file_error(path, what); }

std::vector<std::pair<std::string, torch::Tensor>> named_state(CaptionModel& m) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : m.net->named_parameters()) out.emplace_back(p.key(), p.value());
  for (const auto& b : m.net->named_buffers()) out.emplace_back(b.key(), b.value());
  for (auto& [name, t] : m.net->encoder->backbone_parameters()) out.emplace_back("encoder.backbone." + name, t);
  return out;
}

}  // namespace

void save_checkpoint(const std::string& path, CaptionModel& model, const SaveOptions& options) {
  torch::serialize::OutputArchive archive;
  for (auto& [name, t] : named_state(model)) archive.write("model/" + name, t.detach().to(torch::kCPU));
  if (options.optimizer) {
    torch::serialize::OutputArchive opt;
    options.optimizer->save(opt);
    archive.write("optimizer", opt);
  }
  if (options.rng_state) archive.write("rng/cpu", compat::cpu_rng_state());
  for (const auto& [name, t] : options.extra) archive.write("extra/" + name, t.detach().to(torch::kCPU));
  const nlohmann::json header = {{"format", "fovea-checkpoint"},
                                 {"model", to_json(model.config)},
                                 {"vocabulary", model.vocab.to_json()},
                                 {"has_optimizer", options.optimizer != nullptr},
                                 {"training", options.training},
                                 {"torch_version", compat::torch_version()}};
  write_fovea_file(path, header, archive);
}

LoadedCheckpoint load_checkpoint(const std::string& path, torch::Device device) {
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
  torch::serialize::InputArchive archive;
  try {
    std::istringstream in(p.archive);
    archive.load_from(in);
  } catch (const c10::Error& e) {
    fail(path, std::string("corrupt weights archive (") + e.what_without_backtrace() + ")");
  }
  {
    torch::NoGradGuard no_grad;
    for (auto& [name, t] : named_state(out.model)) {
      torch::Tensor stored_t;
      if (!archive.try_read("model/" + name, stored_t)) fail(path, "weights for '" + name + "' are missing");
      if (stored_t.sizes() != t.sizes()) {
        std::ostringstream msg;
        msg << "weights for '" << name << "' have shape " << stored_t.sizes() << " but the model config needs "
            << t.sizes();
        fail(path, msg.str());
      }
      t.copy_(stored_t);
    }
  }
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
