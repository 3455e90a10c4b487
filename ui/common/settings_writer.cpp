#include "ui/common/settings_writer.h"

#include <QCoreApplication>
#include <QSettings>
#include <QThreadPool>

namespace fovea::ui {

namespace {

/// One thread, so that two writes of a key land in the order asked. A child of the application,
/// whose end waits for the writes still queued.
QThreadPool& writer() {
  static QThreadPool* pool = [] {
    auto* p = new QThreadPool(QCoreApplication::instance());
    p->setMaxThreadCount(1);
    p->setExpiryTimeout(-1);
    return p;
  }();
  return *pool;
}

}  // namespace

void remember_setting(const QString& key, const QVariant& value) {
  writer().start([key, value] { QSettings().setValue(key, value); });
}

}  // namespace fovea::ui
