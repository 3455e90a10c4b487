#include "ui/training/run_estimate.h"

#include <QFileInfo>
#include <QObject>

#include <cmath>

#include "core/train/run_log.h"

#include <algorithm>

namespace fovea::ui {

namespace {

/// Steps per epoch, when the config alone tells: the built-in scenes, or a capped dataset on disk.
std::int64_t steps_per_epoch(const fovea::TrainConfig& c) {
  return c.train_scenes > 0 ? std::int64_t(c.train_scenes) / std::max<std::int64_t>(1, c.batch_size) : 0;
}

/// Two runs train at the same speed: the same model, batch, device and precision.
bool same_speed(const fovea::TrainConfig& a, const fovea::TrainConfig& b) {
  return a.model.image_size == b.model.image_size && a.model.encoder_widths == b.model.encoder_widths &&
         a.model.embed_dim == b.model.embed_dim && a.model.attention_dim == b.model.attention_dim &&
         a.model.hidden_dim == b.model.hidden_dim && a.model.attention == b.model.attention &&
         a.backbone == b.backbone && a.batch_size == b.batch_size && a.device == b.device &&
         a.precision == b.precision;
}

QString minutes(double s) {
  return s < 90 ? QObject::tr("%1 s").arg(std::lround(s)) : QObject::tr("%1 min").arg(std::lround(s / 60));
}

}  // namespace

RunEstimate::RunEstimate(const QList<RunSummary>& past_runs) {
  QList<RunSummary> runs = past_runs;
  std::sort(runs.begin(), runs.end(), [](const RunSummary& a, const RunSummary& b) { return a.dir < b.dir; });
  for (const RunSummary& run : runs) {
    if (!run.readable || !run.has_config) continue;  // an unreadable run tells nothing about speed
    Speed s;
    s.run = run.name();
    s.config = run.config;
    double pretrain_end = 0;
    if (run.pretrain_step > 0) {
      pretrain_end = run.pretrain_elapsed_s;
      s.pretrain_s = pretrain_end / double(run.pretrain_step);
    }
    if (run.train_step >= 10) s.caption_s = (run.train_elapsed_s - pretrain_end) / double(run.train_step);
    if (s.pretrain_s > 0 || s.caption_s > 0) speeds_.append(s);
  }
}

const RunEstimate::Speed* RunEstimate::match(const fovea::TrainConfig& config) const {
  const Speed* best = nullptr;
  for (const auto& s : speeds_) {
    if (same_speed(s.config, config) && s.caption_s > 0) best = &s;  // the last one listed (find_runs sorts)
  }
  return best;
}

double RunEstimate::seconds(const fovea::TrainConfig& config) const {
  const auto per_epoch = steps_per_epoch(config);
  const Speed* s = match(config);
  if (s == nullptr || per_epoch == 0) return -1;
  const auto plan = fovea::plan_run(config, per_epoch);
  const double pretrain_s = s->pretrain_s > 0 ? s->pretrain_s : s->caption_s;  // pretraining steps are cheaper
  return double(plan.pretrain_steps) * pretrain_s + double(plan.captioning_steps) * s->caption_s;
}

QString RunEstimate::describe(const fovea::TrainConfig& config) const {
  const auto per_epoch = steps_per_epoch(config);
  if (per_epoch == 0) {
    return QObject::tr("%1 epochs of (training images ÷ %2) steps; the time shows once the first steps run")
        .arg(config.epochs)
        .arg(config.batch_size);
  }
  const auto plan = fovea::plan_run(config, per_epoch);
  QString text = plan.pretrain_steps > 0 ? QObject::tr("%1 pretraining + %2 captioning steps").arg(plan.pretrain_steps).arg(plan.captioning_steps)
                                         : QObject::tr("%1 captioning steps").arg(plan.captioning_steps);
  const bool capped = plan.captioning_steps < per_epoch * config.epochs;
  text += capped ? QObject::tr(" (max steps; epochs of %1)").arg(per_epoch)
                 : QObject::tr(" (%1 epoch%2 of %3)").arg(config.epochs).arg(config.epochs == 1 ? "" : "s").arg(per_epoch);
  const double s = seconds(config);
  if (s >= 0) {
    text += QObject::tr("; about %1 at the speed of run %2 (same model, batch and precision)").arg(minutes(s), match(config)->run);
  } else {
    text += QObject::tr("; no past run of this model here to time it by");
  }
  return text;
}

}  // namespace fovea::ui
