#include "ui/explorer/resource_paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace fovea::ui {
namespace {

QStringList data_roots() {
  const QString app = QCoreApplication::applicationDirPath();
  return {app + "/../share/fovea", app + "/..", app + "/../..", QStringLiteral(FOVEA_SOURCE_DIR), QDir::currentPath()};
}

QString first_existing(const QString& relative) {
  for (const QString& root : data_roots()) {
    const QFileInfo f(root + "/" + relative);
    if (f.exists()) return f.canonicalFilePath();
  }
  return {};
}

}  // namespace

QString default_model_path() {
  const QString env = qEnvironmentVariable("FOVEA_MODEL");
  if (!env.isEmpty()) return env;
  return first_existing("models/fashion-soft.ckpt");
}

QString default_compare_model_path() { return first_existing("models/fashion-hard.ckpt"); }

QString samples_dir() { return first_existing("resources/samples"); }

}  // namespace fovea::ui
