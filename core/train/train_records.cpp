#include "core/train/train_records.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

namespace fovea {

nlohmann::json to_json(const TrainRecord& r) {
  nlohmann::json j = {{"kind", "train"},         {"step", r.step},
                      {"epoch", r.epoch},        {"loss", r.loss},
                      {"nll", r.nll},            {"penalty", r.penalty},
                      {"lr", r.lr},              {"grad_norm", r.grad_norm},
                      {"tokens_per_s", r.tokens_per_s}, {"entropy", r.entropy},
                      {"aux_loss", r.aux_loss},  {"attention_loss", r.attention_loss},
                      {"elapsed_s", r.elapsed_s}};
  if (r.hard) {
    j["baseline"] = r.baseline;
    j["reward"] = r.reward;
    j["reward_var"] = r.reward_var;
  }
  if (r.self_critical) {
    j["sample_reward"] = r.sample_reward;
    j["baseline_reward"] = r.baseline_reward;
    j["advantage"] = r.advantage;
    j["sample_length"] = r.sample_length;
    j["end_rate"] = r.end_rate;
  }
  return j;
}

nlohmann::json to_json(const ValidationRecord& v) {
  nlohmann::json j = {{"kind", "val"},       {"step", v.step},         {"epoch", v.epoch},
                      {"bleu1", v.bleu[0]},  {"bleu2", v.bleu[1]},     {"bleu3", v.bleu[2]},
                      {"bleu4", v.bleu[3]},  {"cider", v.cider},       {"improved", v.improved},
                      {"best_bleu4", v.best_bleu4}, {"nll", v.nll},  {"metric", v.metric}};
  if (v.has_grounding) {
    j["pointing"] = v.pointing;
    j["alpha_in_box"] = v.alpha_in_box;
    j["absent_nouns"] = v.absent_nouns;
  }
  if (v.has_faithfulness) {
    j["faithful_rate"] = v.faithful_rate;
    j["attended_drop"] = v.attended_drop;
    j["control_drop"] = v.control_drop;
  }
  return j;
}

std::string improvement_note(const ValidationRecord& v) {
  if (!v.improved) return {};
  if (v.metric == "BLEU-4") return "best so far";
  if (v.metric == "CIDEr-D") {
    return v.bleu[3] >= 0.01 ? "best so far by CIDEr-D, the metric self-critical training optimises"
                             : "best so far by CIDEr-D, BLEU-4 being below 0.01";
  }
  return "best so far by validation NLL " + [&] {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", v.nll);
    return std::string(b);
  }() + ", BLEU-4 and CIDEr-D being below 0.01";
}

nlohmann::json to_json(const SampleRecord& s) {
  nlohmann::json samples = nlohmann::json::array();
  for (std::size_t i = 0; i < s.captions.size(); ++i) {
    auto c = to_json(s.captions[i]);
    c["image"] = i < s.image_paths.size() ? s.image_paths[i] : std::string();
    samples.push_back(std::move(c));
  }
  return {{"step", s.step}, {"epoch", s.epoch}, {"samples", samples}};
}

nlohmann::json to_json(const PretrainRecord& p) {
  // "pretrain_step", not "step": resuming keeps the log lines up to the checkpoint's step, 0 here.
  nlohmann::json j = {{"kind", "pretrain"},  {"pretrain_step", p.pretrain_step}, {"pretrain_steps", p.pretrain_steps},
                      {"loss", p.loss},      {"item_accuracy", p.item_accuracy}, {"lr", p.lr},
                      {"elapsed_s", p.elapsed_s}};
  if (p.held_out_accuracy >= 0) j["held_out_accuracy"] = p.held_out_accuracy;
  return j;
}

nlohmann::json to_json(const TrainEvent& e) {
  nlohmann::json value = e.value;
  if (!std::isfinite(e.value)) value = std::isnan(e.value) ? "nan" : e.value > 0 ? "inf" : "-inf";  // JSON has no NaN
  return {{"kind", "event"},         {"step", e.step},           {"what", e.what},
          {"quantity", e.quantity},  {"value", value},           {"action", e.action},
          {"failed_step", e.failed_step}, {"lr_scale", e.lr_scale}, {"message", e.message}};
}

TrainEvent train_event_from_json(const nlohmann::json& j) {
  TrainEvent e;
  e.step = j.value("step", std::int64_t(0));
  e.what = j.value("what", std::string());
  e.quantity = j.value("quantity", std::string());
  const auto& v = j.contains("value") ? j["value"] : nlohmann::json();
  if (v.is_number()) e.value = v.get<double>();
  else if (v.is_string()) e.value = v == "inf" ? HUGE_VAL : v == "-inf" ? -HUGE_VAL : std::numeric_limits<double>::quiet_NaN();
  e.action = j.value("action", std::string());
  e.failed_step = j.value("failed_step", e.step);
  e.lr_scale = j.value("lr_scale", 1.0);
  e.message = j.value("message", std::string());
  return e;
}

PretrainRecord pretrain_record_from_json(const nlohmann::json& j) {
  PretrainRecord p;
  p.pretrain_step = j.value("pretrain_step", std::int64_t(0));
  p.pretrain_steps = j.value("pretrain_steps", std::int64_t(0));
  p.loss = j.value("loss", 0.0);
  p.item_accuracy = j.value("item_accuracy", 0.0);
  p.lr = j.value("lr", 0.0);
  p.elapsed_s = j.value("elapsed_s", 0.0);
  p.held_out_accuracy = j.value("held_out_accuracy", -1.0);
  return p;
}

TrainRecord train_record_from_json(const nlohmann::json& j) {
  TrainRecord r;
  r.step = j.value("step", std::int64_t(0));
  r.epoch = j.value("epoch", std::int64_t(0));
  r.loss = j.value("loss", 0.0);
  r.nll = j.value("nll", 0.0);
  r.penalty = j.value("penalty", 0.0);
  r.lr = j.value("lr", 0.0);
  r.grad_norm = j.value("grad_norm", 0.0);
  r.tokens_per_s = j.value("tokens_per_s", 0.0);
  r.entropy = j.value("entropy", 0.0);
  r.aux_loss = j.value("aux_loss", 0.0);
  r.attention_loss = j.value("attention_loss", 0.0);
  r.elapsed_s = j.value("elapsed_s", 0.0);
  r.hard = j.contains("baseline");
  r.baseline = j.value("baseline", 0.0);
  r.reward = j.value("reward", 0.0);
  r.reward_var = j.value("reward_var", 0.0);
  r.self_critical = j.contains("sample_reward");
  r.sample_reward = j.value("sample_reward", 0.0);
  r.baseline_reward = j.value("baseline_reward", 0.0);
  r.advantage = j.value("advantage", 0.0);
  r.sample_length = j.value("sample_length", 0.0);
  r.end_rate = j.value("end_rate", 0.0);
  return r;
}

ValidationRecord validation_record_from_json(const nlohmann::json& j) {
  ValidationRecord v;
  v.step = j.value("step", std::int64_t(0));
  v.epoch = j.value("epoch", std::int64_t(0));
  for (int n = 0; n < 4; ++n) v.bleu[n] = j.value("bleu" + std::to_string(n + 1), 0.0);
  v.cider = j.value("cider", std::numeric_limits<double>::quiet_NaN());  // older runs did not score it
  v.has_grounding = j.contains("pointing");
  v.pointing = j.value("pointing", 0.0);
  v.alpha_in_box = j.value("alpha_in_box", 0.0);
  v.absent_nouns = j.value("absent_nouns", 0.0);
  v.improved = j.value("improved", false);
  v.best_bleu4 = j.value("best_bleu4", 0.0);
  v.nll = j.value("nll", 0.0);
  v.metric = j.value("metric", std::string("BLEU-4"));
  v.has_faithfulness = j.contains("faithful_rate");
  v.faithful_rate = j.value("faithful_rate", 0.0);
  v.attended_drop = j.value("attended_drop", 0.0);
  v.control_drop = j.value("control_drop", 0.0);
  return v;
}

SampleRecord sample_record_from_json(const nlohmann::json& j) {
  SampleRecord s;
  s.step = j.value("step", std::int64_t(0));
  s.epoch = j.value("epoch", std::int64_t(0));
  for (const auto& c : j.at("samples")) {
    s.image_paths.push_back(c.value("image", std::string()));
    CaptionResult r;
    const auto& grid = c.at("grid");
    r.grid_h = grid.at(0).get<int>();
    r.grid_w = grid.at(1).get<int>();
    r.log_prob = c.value("log_prob", 0.0);
    r.finished = c.value("finished", true);
    for (const auto& w : c.at("words")) {
      WordAttention a;
      a.word = w.at("word").get<std::string>();
      a.beta = w.value("beta", 1.0f);
      a.log_prob = w.value("log_prob", 0.0f);
      if (w.contains("glimpse")) a.glimpse = w["glimpse"].at(0).get<long long>() * r.grid_w + w["glimpse"].at(1).get<long long>();
      for (const auto& row : w.at("alpha")) {
        for (const auto& x : row) a.alpha.push_back(x.get<float>());
      }
      r.words.push_back(std::move(a));
    }
    s.captions.push_back(std::move(r));
  }
  return s;
}

}  // namespace fovea
