#include "ui/explorer/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

#include <algorithm>

namespace fovea::ui {

namespace {
constexpr int kMaxRecent = 10;
const char* kRecentKey = "recentFiles";
}  // namespace

RecentFiles::RecentFiles(QMenu* menu, std::function<void(const QString&)> open, QObject* parent)
    : QObject(parent), menu_(menu), open_(std::move(open)) {
  refresh();
}

QStringList RecentFiles::files() const { return QSettings().value(kRecentKey).toStringList(); }

void RecentFiles::add(const QString& path) {
  QSettings settings;
  QStringList list = settings.value(kRecentKey).toStringList();
  list.removeAll(path);
  list.prepend(path);
  while (list.size() > kMaxRecent) list.removeLast();
  settings.setValue(kRecentKey, list);
  refresh();
}

void RecentFiles::refresh() {
  menu_->clear();
  const QStringList list = files();
  // File names, with the folder where two share a name (and the whole path where that is not enough).
  const auto label = [&list](const QString& path) {
    const QFileInfo info(path);
    const auto same = [&](auto part) {
      return std::count_if(list.begin(), list.end(), [&](const QString& p) { return part(QFileInfo(p)) == part(info); });
    };
    if (same([](const QFileInfo& f) { return f.fileName(); }) == 1) return info.fileName();
    const auto with_folder = [](const QFileInfo& f) { return f.dir().dirName() + "/" + f.fileName(); };
    return same(with_folder) == 1 ? with_folder(info) : QDir::toNativeSeparators(path);
  };
  for (const QString& path : list) menu_->addAction(label(path), this, [this, path] { open_(path); })->setToolTip(path);
  if (list.isEmpty()) {
    menu_->addAction(tr("(none yet)"))->setEnabled(false);
    return;
  }
  menu_->addSeparator();
  menu_->addAction(tr("Clear List"), this, [this] {
    QSettings().remove(kRecentKey);
    refresh();
  });
}

}  // namespace fovea::ui
