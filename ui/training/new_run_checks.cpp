#include "ui/training/new_run_checks.h"

#include <QFileInfo>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/train/run_log.h"

namespace fovea::ui {

void check_new_run(const fovea::TrainConfig& c) {
  c.validate();
  if (c.lr > kMaxLearningRate) {
    throw std::invalid_argument("--lr " + fovea::format_setting(fovea::SettingValue(c.lr)) +
                                " is far above any learning rate that trains (the recipe's is " +
                                fovea::format_setting(fovea::SettingValue(fovea::recommended_train_config().lr)) +
                                "): the first steps would overflow. Choose one of at most " +
                                fovea::format_setting(fovea::SettingValue(kMaxLearningRate)));
  }
  if (QFileInfo::exists(QString::fromStdString(fovea::last_checkpoint_path(c.out_dir)))) {
    throw std::invalid_argument(c.out_dir + " already holds a run; resume it from the run list or choose another folder");
  }
  if (!c.init_from.empty() && !QFileInfo::exists(QString::fromStdString(c.init_from))) {
    throw std::invalid_argument(c.init_from + ": no such checkpoint to initialise from");
  }
  if (!c.backbone.empty() && !QFileInfo::exists(QString::fromStdString(c.backbone))) {
    throw std::invalid_argument(c.backbone + ": no such encoder file or TorchScript CNN (backbone; none: untrained)");
  }
}

QString label_of(const fovea::TrainSetting& s) {
  QString label = QString::fromLatin1(s.key).replace('_', ' ');
  label[0] = label[0].toUpper();
  return label;
}

QString in_field_names(QString text) {
  std::vector<const fovea::TrainSetting*> settings;
  for (const auto& s : fovea::train_settings()) settings.push_back(&s);
  std::sort(settings.begin(), settings.end(), [](auto* a, auto* b) { return a->cli_name().size() > b->cli_name().size(); });
  for (const auto* s : settings) text.replace(QString::fromStdString(s->cli_name()), QStringLiteral("“%1”").arg(label_of(*s)));
  return text;
}

}  // namespace fovea::ui
