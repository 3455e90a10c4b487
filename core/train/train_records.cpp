#include "core/train/train_records.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

namespace fovea {

namespace {
/// A record's number field and its name in metrics.jsonl: one table per record serves writing
/// and reading it.
template <class Record>
struct Field {
  const char* name;
  double Record::*member;
};

constexpr Field<TrainRecord> kTrainFields[] = {
    {"loss", &TrainRecord::loss},          {"nll", &TrainRecord::nll},
    {"penalty", &TrainRecord::penalty},    {"lr", &TrainRecord::lr},
    {"grad_norm", &TrainRecord::grad_norm}, {"tokens_per_s", &TrainRecord::tokens_per_s},
    {"entropy", &TrainRecord::entropy},    {"aux_loss", &TrainRecord::aux_loss},
    {"attention_loss", &TrainRecord::attention_loss}, {"elapsed_s", &TrainRecord::elapsed_s}};
constexpr Field<TrainRecord> kHardFields[] = {
    {"baseline", &TrainRecord::baseline}, {"reward", &TrainRecord::reward}, {"reward_var", &TrainRecord::reward_var}};
constexpr Field<TrainRecord> kSelfCriticalFields[] = {
    {"sample_reward", &TrainRecord::sample_reward}, {"baseline_reward", &TrainRecord::baseline_reward},
    {"advantage", &TrainRecord::advantage},         {"sample_length", &TrainRecord::sample_length},
    {"end_rate", &TrainRecord::end_rate},           {"advantage_rms", &TrainRecord::advantage_rms}};
constexpr Field<ValidationRecord> kValidationFields[] = {{"best_bleu4", &ValidationRecord::best_bleu4},
                                                         {"nll", &ValidationRecord::nll}};
constexpr Field<ValidationRecord> kGroundingFields[] = {{"pointing", &ValidationRecord::pointing},
                                                        {"alpha_in_box", &ValidationRecord::alpha_in_box},
                                                        {"absent_nouns", &ValidationRecord::absent_nouns}};
constexpr Field<ValidationRecord> kFaithfulnessFields[] = {{"faithful_rate", &ValidationRecord::faithful_rate},
                                                           {"attended_drop", &ValidationRecord::attended_drop},
                                                           {"control_drop", &ValidationRecord::control_drop}};
constexpr Field<PretrainRecord> kPretrainFields[] = {{"loss", &PretrainRecord::loss},
                                                     {"item_accuracy", &PretrainRecord::item_accuracy},
                                                     {"lr", &PretrainRecord::lr},
                                                     {"elapsed_s", &PretrainRecord::elapsed_s}};

template <class Record, std::size_t N>
void write_fields(nlohmann::json& j, const Record& record, const Field<Record> (&fields)[N]) {
  for (const auto& f : fields) j[f.name] = record.*f.member;
}

/// Reads `fields` from `j`; a name `j` lacks (an older run's log, a kind of run that has no such
/// number) reads as 0.
template <class Record, std::size_t N>
void read_fields(const nlohmann::json& j, Record& record, const Field<Record> (&fields)[N]) {
  for (const auto& f : fields) record.*f.member = j.value(f.name, 0.0);
}

/// The same for fields written only by some runs; whether `j` has them (its first name says).
template <class Record, std::size_t N>
bool read_optional_fields(const nlohmann::json& j, Record& record, const Field<Record> (&fields)[N]) {
  read_fields(j, record, fields);
  return j.contains(fields[0].name);
}

/// The step and epoch a record was logged at.
template <class Record>
Record at_step_of(const nlohmann::json& j) {
  Record r;
  r.step = j.value("step", std::int64_t(0));
  r.epoch = j.value("epoch", std::int64_t(0));
  return r;
}
}  // namespace

nlohmann::json to_json(const TrainRecord& r) {
  nlohmann::json j = {{"kind", "train"}, {"step", r.step}, {"epoch", r.epoch}};
  write_fields(j, r, kTrainFields);
  if (r.hard) write_fields(j, r, kHardFields);
  if (r.self_critical) write_fields(j, r, kSelfCriticalFields);
  return j;
}

nlohmann::json to_json(const ValidationRecord& v) {
  nlohmann::json j = {{"kind", "val"},      {"step", v.step},     {"epoch", v.epoch},   {"bleu1", v.bleu[0]},
                      {"bleu2", v.bleu[1]}, {"bleu3", v.bleu[2]}, {"bleu4", v.bleu[3]}, {"cider", v.cider},
                      {"improved", v.improved}, {"metric", v.metric}};
  write_fields(j, v, kValidationFields);
  if (v.has_grounding) write_fields(j, v, kGroundingFields);
  if (v.has_faithfulness) write_fields(j, v, kFaithfulnessFields);
  return j;
}

void BestValidation::add(const ValidationRecord& v) {
  if (v.improved) {
    metric = v.metric;
    score = v.metric == "CIDEr-D" ? v.cider : v.metric == "validation NLL" ? v.nll : v.bleu[3];
    named_ = true;
  } else if (!named_) {
    score = metric.empty() ? v.bleu[3] : std::max(score, v.bleu[3]);
    metric = "BLEU-4";
  }
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
  nlohmann::json j = {{"kind", "pretrain"}, {"pretrain_step", p.pretrain_step}, {"pretrain_steps", p.pretrain_steps}};
  write_fields(j, p, kPretrainFields);
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
  read_fields(j, p, kPretrainFields);
  p.held_out_accuracy = j.value("held_out_accuracy", -1.0);
  return p;
}

TrainRecord train_record_from_json(const nlohmann::json& j) {
  auto r = at_step_of<TrainRecord>(j);
  read_fields(j, r, kTrainFields);
  r.hard = read_optional_fields(j, r, kHardFields);
  r.self_critical = read_optional_fields(j, r, kSelfCriticalFields);
  if (!j.contains("advantage_rms")) r.advantage_rms = std::numeric_limits<double>::quiet_NaN();  // older runs
  return r;
}

ValidationRecord validation_record_from_json(const nlohmann::json& j) {
  auto v = at_step_of<ValidationRecord>(j);
  read_fields(j, v, kValidationFields);
  for (int n = 0; n < 4; ++n) v.bleu[n] = j.value("bleu" + std::to_string(n + 1), 0.0);
  v.cider = j.value("cider", std::numeric_limits<double>::quiet_NaN());  // older runs did not score it
  v.improved = j.value("improved", false);
  v.metric = j.value("metric", std::string("BLEU-4"));
  v.has_grounding = read_optional_fields(j, v, kGroundingFields);
  v.has_faithfulness = read_optional_fields(j, v, kFaithfulnessFields);
  return v;
}

SampleRecord sample_record_from_json(const nlohmann::json& j) {
  auto s = at_step_of<SampleRecord>(j);
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
