#include "ui/explorer/session_memory.h"

#include <QFileInfo>
#include <QSettings>

#include "ui/common/settings_writer.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/thumbnail_strip.h"

namespace fovea::ui {

namespace {
const QString kImage = QStringLiteral("session/image"), kFolder = QStringLiteral("session/folder"),
              kCompare = QStringLiteral("session/compare"), kCompareModel = QStringLiteral("session/compare_model");
}  // namespace

void remember_session(const MainWindow& window) {
  remember_setting(kImage, window.imagePath());
  remember_setting(kFolder, window.thumbnails()->folder());
  const bool comparing = !window.comparePanel()->isHidden();
  remember_setting(kCompare, comparing);
  remember_setting(kCompareModel, comparing ? window.comparePanel()->modelPath() : QString());
}

void restore_compare_mode(MainWindow& window) {
  const QSettings s;
  if (!s.value(kCompare, false).toBool()) return;
  const QString model = s.value(kCompareModel).toString();
  if (!model.isEmpty() && QFileInfo(model).isFile()) window.loadCompareModel(model);  // shows the comparison
  else window.setCompareVisible(true);  // with the other shipped model
}

bool reopen_last_shown(MainWindow& window) {
  const QSettings s;
  const QString image = s.value(kImage).toString();
  if (!image.isEmpty() && QFileInfo(image).isFile() && window.openImage(image, false)) return true;
  const QString folder = s.value(kFolder).toString();
  return !folder.isEmpty() && QFileInfo(folder).isDir() && window.openFolder(folder) > 0;
}

}  // namespace fovea::ui
