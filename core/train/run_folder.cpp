#include "core/train/run_folder.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/io/atomic_file.h"
#include "core/model/checkpoint.h"
#include "core/render/png_encoder.h"
#include "core/train/run_log.h"
#include "core/train/run_state.h"

namespace fovea {

namespace fs = std::filesystem;

RunFolder::RunFolder(std::string dir, bool writes, std::function<void(const std::string&)> message)
    : dir_(std::move(dir)), writes_(writes), message_(std::move(message)) {
  metrics_.path = metrics_path(dir_);
  metrics_.name = "metrics.jsonl";
  samples_.path = samples_path(dir_);
  samples_.name = "samples.jsonl";
}

void RunFolder::create(const TrainConfig& config) {
  if (!writes_) return;
  fs::create_directories(dir_);
  std::ofstream(metrics_.path, std::ios::trunc);
  std::ofstream(samples_.path, std::ios::trunc);
  write_file_atomically(config_path(dir_), to_json(config).dump(2) + "\n");
}

void RunFolder::reopen(const TrainConfig& config, std::int64_t step, std::int64_t pretrain_step) {
  if (!writes_) return;
  for (const auto& name : remove_unfinished_writes(dir_)) {
    if (message_) message_("removed " + name + ", a file the interrupted run did not finish writing");
  }
  truncate_metrics(metrics_.path, step, pretrain_step);
  // A run resumed at step 0 logs its step-0 samples again (before its first step).
  truncate_metrics(samples_.path, step == 0 ? -1 : step, pretrain_step);
  write_file_atomically(config_path(dir_), to_json(config).dump(2) + "\n");
}

void RunFolder::open_logs() {
  if (!writes_) return;
  metrics_.out.open(metrics_.path, std::ios::app);
  samples_.out.open(samples_.path, std::ios::app);
}

void RunFolder::cut_logs_back(std::int64_t step, std::int64_t pretrain_step) {
  if (!writes_) return;
  metrics_.out.close();
  samples_.out.close();
  truncate_metrics(metrics_.path, step, pretrain_step);
  truncate_metrics(samples_.path, step, pretrain_step);
  open_logs();
}

void RunFolder::append(Log& log, const nlohmann::json& line) {
  if (!writes_) return;
  if (log.failing) {  // try again: the disk may have room, the file may be writable again
    log.out.close();
    log.out.clear();
    log.out.open(log.path, std::ios::app);
    // A line the failure cut short stays unparseable on its own line (readers skip it).
    if (log.out) log.out << "\n";
  }
  errno = 0;
  log.out << line.dump() << "\n" << std::flush;
  if (log.out && log.failing) {
    log.failing = false;
    if (message_) message_(log.name + " is written again");
  } else if (!log.out && !log.failing) {
    log.failing = true;
    const std::string reason = errno != 0 ? std::strerror(errno) : "the write failed";
    if (message_) {
      message_("warning: cannot write " + log.path + " (" + reason +
               "): its records are lost until it can be written again; training goes on");
    }
  }
}

std::string RunFolder::sample_image_name(std::size_t k) { return "samples/val_" + std::to_string(k) + ".png"; }

void RunFolder::write_sample_images(const SceneSource& val, std::size_t count) {
  if (!writes_ || count == 0) return;
  fs::create_directories(fs::path(dir_) / "samples");
  for (std::size_t k = 0; k < count; ++k) {
    const auto path = (fs::path(dir_) / sample_image_name(k)).string();
    if (fs::exists(path)) continue;
    const auto png = encode_png(val.get(k).image);
    write_file_atomically(path, std::string(png.begin(), png.end()));
  }
}

void RunFolder::save_last(CaptionModel& model, torch::optim::Optimizer& optimizer, const nlohmann::json& training) {
  if (!writes_) return;
  SaveOptions full;
  full.optimizer = &optimizer;
  full.training = training;
  save_checkpoint(last_checkpoint_path(dir_), model, full);
}

void RunFolder::save_best(CaptionModel& model, const nlohmann::json& training) {
  if (!writes_) return;
  SaveOptions weights_only;
  weights_only.rng_state = false;
  weights_only.training = training;
  save_checkpoint(best_checkpoint_path(dir_), model, weights_only);
}

}  // namespace fovea
