#include "core/eval/reference_captions.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/data/tokenizer.h"
#include "core/io/json_file.h"
#include "core/eval/caption_metrics.h"

namespace fovea {

namespace fs = std::filesystem;

ReferenceCaptions ReferenceCaptions::read_folder(const std::string& dir) {
  ReferenceCaptions r;
  const auto path = (fs::path(dir) / "captions.json").string();
  std::ifstream in(path);
  if (!in) return r;
  try {
    const auto j = nlohmann::json::parse(in);
    if (!j.is_array()) throw std::runtime_error(path + ": not a list of {\"file\", \"captions\"}");
    for (const auto& entry : j) {
      r.files_.push_back(entry.at("file").get<std::string>());
      r.captions_.push_back(entry.at("captions").get<std::vector<std::string>>());
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not a list of {\"file\", \"captions\"}: " + json_error_text(e));
  }
  return r;
}

const std::vector<std::string>& ReferenceCaptions::of(const std::string& file_name) const {
  static const std::vector<std::string> none;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (files_[i] == file_name) return captions_[i];
  }
  return none;
}

ReferenceCaptions::Scores ReferenceCaptions::score(const std::string& file_name, const std::string& caption) const {
  // Every image of the folder takes part, so that CIDEr-D's document frequencies mean something;
  // only `file_name`'s score is kept (the others get an empty candidate).
  std::vector<Tokens> candidates(files_.size());
  std::vector<std::vector<Tokens>> references(files_.size());
  std::size_t self = files_.size();
  for (std::size_t i = 0; i < files_.size(); ++i) {
    for (const auto& c : captions_[i]) references[i].push_back(tokenize(c));
    if (files_[i] == file_name) self = i;
  }
  if (self == files_.size() || references[self].empty()) {
    throw std::invalid_argument(file_name + ": no reference captions");
  }
  candidates[self] = tokenize(caption);
  Scores s;
  s.bleu4 = corpus_bleu({candidates[self]}, {references[self]})[3];
  s.cider = cider_d(candidates, references)[self];
  return s;
}

}  // namespace fovea
