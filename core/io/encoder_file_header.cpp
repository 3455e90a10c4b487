#include "core/io/encoder_file_header.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "core/io/checkpoint_header.h"
#include "core/io/fovea_file.h"

namespace fovea {

namespace {

constexpr const char* kFormat = "fovea-encoder";  // the header's "format"

std::string list(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

}  // namespace

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
