#include "ui/charts/run_curves.h"

#include <QHash>

#include <cmath>

namespace fovea::ui {

MetricValues train_values(const fovea::TrainRecord& r) {
  MetricValues v{{"nll", r.nll},
                 {"penalty", r.penalty},
                 {"entropy", r.entropy},
                 {"grad_norm", r.grad_norm},
                 {"lr", r.lr},
                 {"tokens_per_s", r.tokens_per_s},
                 {"attention_loss", r.attention_loss},
                 {"aux_loss", r.aux_loss}};
  if (r.hard) v += MetricValues{{"baseline", r.baseline}, {"reward", r.reward}, {"reward_var", r.reward_var}};
  if (r.self_critical) {
    v += MetricValues{{"sample_reward", r.sample_reward}, {"baseline_reward", r.baseline_reward}, {"advantage", r.advantage},
                      {"advantage_rms", r.advantage_rms},
                      {"sample_length", r.sample_length}, {"end_rate", 100 * r.end_rate}};
  }
  return v;
}

MetricValues validation_values(const fovea::ValidationRecord& v) {
  MetricValues out{{"bleu4", v.bleu[3]}, {"cider", v.cider}};
  if (v.has_grounding) out += MetricValues{{"pointing", 100 * v.pointing}, {"alpha_in_box", 100 * v.alpha_in_box}};
  if (v.has_faithfulness) out.append({"faithful_rate", 100 * v.faithful_rate});
  return out;
}

MetricValues pretrain_values(const fovea::PretrainRecord& p) {
  MetricValues out{{"item_accuracy", 100 * p.item_accuracy}};
  if (p.held_out_accuracy >= 0) out.append({"held_out_accuracy", 100 * p.held_out_accuracy});
  return out;
}

RunCurves run_curves(const fovea::RunLog& log) {
  RunCurves c;
  c.id = QString::fromStdString(log.dir);
  c.name = QString::fromStdString(log.name());
  c.hard = log.hard();
  for (const auto& e : log.events) c.events.append({double(e.step), QString::fromStdString(e.message)});
  // Every metric a run can have gets a (maybe empty) curve: loading a run replaces all of them.
  QHash<QString, qsizetype> index;
  const auto add = [&](const MetricValues& values, double step) {
    for (const auto& [metric, value] : values) {
      auto found = index.constFind(QLatin1String(metric));
      if (found == index.constEnd()) {
        found = index.insert(QLatin1String(metric), c.curves.size());
        c.curves.append({QLatin1String(metric), {}});
      }
      if (std::isfinite(value)) c.curves[*found].second.append({step, value});
    }
  };
  for (const char* metric : {"nll", "penalty", "baseline", "reward", "reward_var", "entropy", "grad_norm", "lr", "tokens_per_s",
                             "attention_loss", "aux_loss", "bleu4", "cider", "pointing", "alpha_in_box", "item_accuracy",
                             "held_out_accuracy", "sample_reward", "baseline_reward", "advantage", "advantage_rms", "sample_length", "end_rate", "faithful_rate"}) {
    index.insert(QLatin1String(metric), c.curves.size());
    c.curves.append({QLatin1String(metric), {}});
  }
  if (!log.train.empty()) {
    for (const auto& [metric, value] : train_values(log.train.back())) c.curves[index.value(QLatin1String(metric))].second.reserve(qsizetype(log.train.size()));
  }
  for (const auto& r : log.train) add(train_values(r), double(r.step));
  for (const auto& v : log.val) add(validation_values(v), double(v.step));
  for (const auto& p : log.pretrain) add(pretrain_values(p), double(p.pretrain_step));
  return c;
}

}  // namespace fovea::ui
