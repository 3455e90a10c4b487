#pragma once
/// Remembers a setting without holding the GUI thread: QSettings writes its file (with a lock)
/// when an object goes, which takes milliseconds to tens of them. The value is written on a worker
/// thread; writes happen in the order asked, and QSettings objects read it once written.
#include <QString>
#include <QVariant>

namespace fovea::ui {

void remember_setting(const QString& key, const QVariant& value);

}  // namespace fovea::ui
