#include "ui/explorer/remembered_model.h"

#include <QFileInfo>
#include <QSettings>

#include "ui/common/settings_writer.h"

namespace fovea::ui {

namespace {
const QString kModel = QStringLiteral("view/model");
}  // namespace

QString remembered_model() {
  const QString path = QSettings().value(kModel).toString();
  return !path.isEmpty() && QFileInfo(path).isFile() ? path : QString();
}

void remember_model(const QString& path) { remember_setting(kModel, QFileInfo(path).absoluteFilePath()); }

}  // namespace fovea::ui
