#include "core/train/run_log.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/io/atomic_file.h"
#include "core/io/checkpoint_header.h"

namespace fovea {

namespace fs = std::filesystem;

std::string last_checkpoint_path(const std::string& run_dir) { return (fs::path(run_dir) / "last.ckpt").string(); }
std::string best_checkpoint_path(const std::string& run_dir) { return (fs::path(run_dir) / "best.ckpt").string(); }
std::string metrics_path(const std::string& run_dir) { return (fs::path(run_dir) / "metrics.jsonl").string(); }
std::string samples_path(const std::string& run_dir) { return (fs::path(run_dir) / "samples.jsonl").string(); }
std::string config_path(const std::string& run_dir) { return (fs::path(run_dir) / "config.json").string(); }
std::string model_card_path(const std::string& run_dir) { return (fs::path(run_dir) / "MODEL_CARD.md").string(); }
std::string failure_path(const std::string& run_dir) { return (fs::path(run_dir) / "failed.json").string(); }

void record_run_failure(const std::string& run_dir, const std::string& error) {
  std::error_code ec;
  if (!fs::exists(metrics_path(run_dir), ec)) return;
  const auto first_line = error.substr(0, error.find('\n'));
  write_file_atomically(failure_path(run_dir), nlohmann::json{{"error", first_line}}.dump() + "\n");
}

void clear_run_failure(const std::string& run_dir) {
  std::error_code ec;
  fs::remove(failure_path(run_dir), ec);
}

namespace {

/// Calls `use` with every line of `path` that parses as JSON; returns how many did not.
std::int64_t for_each_json_line(const std::string& path, const std::function<void(const nlohmann::json&)>& use) {
  std::ifstream in(path);
  std::int64_t bad = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      use(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception&) {
      ++bad;
    }
  }
  return bad;
}

bool read_config(const std::string& dir, TrainConfig& config) {
  try {
    if (fs::exists(config_path(dir))) {
      std::ifstream in(config_path(dir));
      config = train_config_from_json(nlohmann::json::parse(in));
      return true;
    }
    if (fs::exists(last_checkpoint_path(dir))) {
      auto header = read_checkpoint_header(last_checkpoint_path(dir));
      config = train_config_from_json(header.at("training").at("config"));
      return true;
    }
  } catch (const std::exception&) {
  }
  return false;
}

}  // namespace

std::string RunLog::name() const { return fs::path(dir).filename().string(); }

bool RunLog::hard() const {
  if (has_config) return config.model.attention == AttentionKind::Hard;
  return !train.empty() && train.back().hard;
}

std::int64_t RunLog::last_step() const {
  std::int64_t s = std::max<std::int64_t>(0, checkpoint_step);
  if (!train.empty()) s = std::max(s, train.back().step);
  if (!val.empty()) s = std::max(s, val.back().step);
  return s;
}

double RunLog::best_bleu4() const {
  double b = 0;
  for (const auto& v : val) b = std::max(b, v.bleu[3]);
  return b;
}

BestValidation RunLog::best() const {
  BestValidation b;
  for (const auto& v : val) b.add(v);
  return b;
}

RunLog read_run_log(const std::string& dir, bool with_samples) {
  const auto metrics = metrics_path(dir);
  if (!fs::exists(metrics)) throw std::runtime_error(dir + ": not a training run folder (no metrics.jsonl)");
  RunLog log;
  log.dir = fs::path(dir).lexically_normal().string();
  if (!log.dir.empty() && log.dir.back() == '/') log.dir.pop_back();
  log.has_config = read_config(dir, log.config);
  log.skipped_lines = for_each_json_line(metrics, [&](const nlohmann::json& j) {
    const auto kind = j.value("kind", std::string());
    if (kind == "train") log.train.push_back(train_record_from_json(j));
    else if (kind == "val") log.val.push_back(validation_record_from_json(j));
    else if (kind == "pretrain") log.pretrain.push_back(pretrain_record_from_json(j));
    else if (kind == "event") log.events.push_back(train_event_from_json(j));
  });
  if (with_samples) log.skipped_lines += for_each_json_line(samples_path(dir), [&](const nlohmann::json& j) {
    auto s = sample_record_from_json(j);
    for (auto& p : s.image_paths) {
      if (!p.empty() && fs::path(p).is_relative()) p = (fs::path(dir) / p).string();
    }
    log.samples.push_back(std::move(s));
  });
  log.has_last_checkpoint = fs::exists(last_checkpoint_path(dir));
  if (log.has_last_checkpoint) {
    try {
      log.checkpoint_step = read_checkpoint_header(last_checkpoint_path(dir)).at("training").at("step").get<std::int64_t>();
    } catch (const std::exception&) {
      // a checkpoint without training state, or damaged: the logs tell the step
    }
  }
  log.has_best_checkpoint = fs::exists(best_checkpoint_path(dir));
  log.finished = fs::exists(model_card_path(dir));
  if (!log.finished && fs::exists(failure_path(dir))) {
    log.failed = true;
    try {
      std::ifstream in(failure_path(dir));
      log.failure = nlohmann::json::parse(in).value("error", std::string());
    } catch (const nlohmann::json::exception&) {
      // cut short while written: still a failed run, the reason unknown
    }
  }
  return log;
}

std::vector<std::string> find_runs(const std::string& root) {
  std::vector<std::string> runs;
  std::error_code ec;
  if (fs::exists(metrics_path(root), ec)) runs.push_back(root);
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.is_directory(ec) && fs::exists(metrics_path(entry.path().string()), ec)) {
      runs.push_back(entry.path().string());
    }
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

}  // namespace fovea
