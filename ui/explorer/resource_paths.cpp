#include "ui/explorer/resource_paths.h"

#include "core/runtime/data_paths.h"

namespace fovea::ui {

QString default_model_path() {
  const QString env = qEnvironmentVariable("FOVEA_MODEL");
  if (!env.isEmpty()) return env;
  return QString::fromStdString(fovea::shipped_model_path("fashion-soft.ckpt"));
}

QString default_compare_model_path() { return QString::fromStdString(fovea::shipped_model_path("fashion-hard.ckpt")); }

QList<NamedModel> shipped_models() {
  QList<NamedModel> out;
  for (const auto& m : fovea::shipped_models()) out.append({QString::fromStdString(m.name), QString::fromStdString(m.path)});
  return out;
}

QString samples_dir() { return QString::fromStdString(fovea::samples_dir()); }

}  // namespace fovea::ui
