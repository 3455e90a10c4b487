#include "core/train/run_state.h"

#include <fstream>

#include "core/io/atomic_file.h"

namespace fovea {

nlohmann::json to_json(const RunState& s, const TrainConfig& c) {
  return {{"config", fovea::to_json(c)},        {"step", s.step},
          {"validated_epochs", s.validated_epochs}, {"baseline", s.baseline.value},
          {"baseline_initialised", s.baseline.initialised}, {"best_bleu4", s.best_bleu4},
          {"best_step", s.best_step},            {"bad_epochs", s.bad_epochs},
          {"elapsed_s", s.elapsed_s},            {"stopped_early", s.stopped_early},
          {"pretrain_step", s.pretrain_step},    {"pretrain_held_out_accuracy", s.pretrain_held_out_accuracy},
          {"lr_scale", s.lr_scale},              {"rollbacks", s.rollbacks},
          {"precision", s.precision},            {"precision_trial", to_json(s.precision_trial)},
          {"best_metric", s.best_metric},        {"best_score", s.best_score},
          {"object_boxes", s.object_boxes}};
}

RunState run_state_from_json(const nlohmann::json& j, double baseline_decay) {
  RunState s;
  s.step = j.at("step").get<std::int64_t>();
  s.validated_epochs = j.at("validated_epochs").get<std::int64_t>();
  s.baseline.value = j.at("baseline").get<double>();
  s.baseline.initialised = j.at("baseline_initialised").get<bool>();
  s.baseline.decay = baseline_decay;
  s.best_bleu4 = j.at("best_bleu4").get<double>();
  s.best_step = j.at("best_step").get<std::int64_t>();
  s.bad_epochs = j.at("bad_epochs").get<std::int64_t>();
  s.elapsed_s = j.at("elapsed_s").get<double>();
  s.stopped_early = j.at("stopped_early").get<bool>();
  s.pretrain_step = j.value("pretrain_step", std::int64_t(0));
  s.pretrain_held_out_accuracy = j.value("pretrain_held_out_accuracy", -1.0);  // absent: saved before it was kept
  s.lr_scale = j.value("lr_scale", 1.0);
  s.rollbacks = j.value("rollbacks", std::int64_t(0));
  s.precision = j.value("precision", std::string());
  if (j.contains("precision_trial")) s.precision_trial = precision_trial_from_json(j.at("precision_trial"));
  // Runs saved before these were kept chose by BLEU-4 and trained on the built-in scenes' boxes.
  s.best_metric = j.value("best_metric", s.best_bleu4 >= 0 ? std::string("BLEU-4") : std::string());
  s.best_score = j.value("best_score", s.best_bleu4);
  s.object_boxes = j.value("object_boxes", true);
  return s;
}

void truncate_metrics(const std::string& path, std::int64_t step, std::int64_t pretrain_step) {
  std::ifstream in(path);
  if (!in) return;
  std::string line, kept;
  while (std::getline(in, line)) {
    try {
      auto j = nlohmann::json::parse(line);
      if (j.value("step", std::int64_t(0)) <= step && j.value("pretrain_step", std::int64_t(0)) <= pretrain_step) {
        kept += line + "\n";
      }
    } catch (const nlohmann::json::exception&) {
      break;  // a line cut short by a crash: nothing after it is trusted
    }
  }
  in.close();
  write_file_atomically(path, kept);
}

}  // namespace fovea
