#include "ui/explorer/thumbnail_strip.h"

#include <QDir>
#include <QFileInfo>
#include <QImageReader>
#include <QSignalBlocker>

namespace fovea::ui {
namespace {
constexpr int kThumb = 72;
constexpr int kMaxFiles = 500;
}  // namespace

ThumbnailStrip::ThumbnailStrip(QWidget* parent) : QListWidget(parent) {
  setViewMode(QListView::IconMode);
  setFlow(QListView::LeftToRight);
  setWrapping(false);
  setMovement(QListView::Static);
  setIconSize(QSize(kThumb, kThumb));
  setUniformItemSizes(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setFixedHeight(kThumb + 46);
  connect(this, &QListWidget::currentRowChanged, this, [this](int row) {
    if (!quiet_ && row >= 0 && row < files_.size()) Q_EMIT imageChosen(files_[row]);
  });
}

int ThumbnailStrip::setFolder(const QString& dir) {
  QStringList patterns;
  for (const QByteArray& fmt : QImageReader::supportedImageFormats()) patterns << "*." + QString::fromLatin1(fmt);
  QDir d(dir);
  QStringList paths;
  for (const QString& name : d.entryList(patterns, QDir::Files | QDir::Readable, QDir::Name | QDir::IgnoreCase)) {
    paths << d.absoluteFilePath(name);
    if (paths.size() >= kMaxFiles) break;
  }
  folder_ = d.absolutePath();
  setFiles(paths);
  return int(paths.size());
}

void ThumbnailStrip::setFiles(const QStringList& paths) {
  quiet_ = true;
  clear();
  files_.clear();
  for (const QString& path : paths) {
    QImageReader reader(path);
    const QSize size = reader.size();
    if (size.isValid()) reader.setScaledSize(size.scaled(kThumb, kThumb, Qt::KeepAspectRatio));
    const QImage thumb = reader.read();
    auto* item = new QListWidgetItem(QFileInfo(path).fileName());
    item->setToolTip(path);
    if (!thumb.isNull()) item->setIcon(QIcon(QPixmap::fromImage(thumb)));
    else item->setText(item->text() + tr(" (unreadable)"));
    addItem(item);
    files_ << path;
  }
  quiet_ = false;
}

void ThumbnailStrip::markCurrent(const QString& path) {
  const int row = int(files_.indexOf(QFileInfo(path).absoluteFilePath()));
  quiet_ = true;
  setCurrentRow(row);
  quiet_ = false;
}

}  // namespace fovea::ui
