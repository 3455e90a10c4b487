#include "ui/explorer/thumbnail_strip.h"

#include <QDir>
#include <QFileInfo>
#include <QImageReader>
#include <QPainter>
#include <QSignalBlocker>
#include <QStyle>

namespace fovea::ui {
namespace {
constexpr int kThumb = 72;
constexpr int kMaxFiles = 500;

/// `image` centred on a transparent kThumb x kThumb square: icons of one shape for any image.
QImage square_thumbnail(const QImage& image) {
  QImage square(kThumb, kThumb, QImage::Format_ARGB32_Premultiplied);
  square.fill(Qt::transparent);
  QPainter painter(&square);
  painter.drawImage((kThumb - image.width()) / 2, (kThumb - image.height()) / 2, image);
  return square;
}
}  // namespace

ThumbnailStrip::ThumbnailStrip(QWidget* parent) : QListWidget(parent) {
  setViewMode(QListView::IconMode);
  setFlow(QListView::LeftToRight);
  setWrapping(false);
  setMovement(QListView::Static);
  setIconSize(QSize(kThumb, kThumb));
  // Every cell the same size, whatever the images' shapes (a wide figure first in the folder once
  // set the size of all), and long names cut in the middle, where file names differ least (the
  // tooltip has the whole path). One line: at 1024x700 the window has no height to spare.
  setGridSize(QSize(kThumb + 28, kThumb + 30));
  setTextElideMode(Qt::ElideMiddle);
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
    if (!thumb.isNull()) {
      item->setIcon(QIcon(QPixmap::fromImage(square_thumbnail(thumb))));
    } else {  // the name stays whole; the icon and the tooltip say it cannot be read
      item->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
      item->setToolTip(tr("%1 (cannot be read as an image)").arg(path));
    }
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
