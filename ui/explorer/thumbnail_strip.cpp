#include "ui/explorer/thumbnail_strip.h"

#include <QDir>
#include <QFileInfo>
#include <QImageReader>
#include <QPainter>
#include <QThreadPool>
#include <QSignalBlocker>
#include <QStyle>

namespace fovea::ui {
namespace {
constexpr int kThumb = 72;
constexpr int kCompactThumb = 44;  ///< on a short screen (setCompact)
constexpr int kMaxFiles = 500;

/// `image` centred on a transparent kThumb x kThumb square: icons of one shape for any image.
QImage square_thumbnail(const QImage& image) {
  QImage square(kThumb, kThumb, QImage::Format_ARGB32_Premultiplied);
  square.fill(Qt::transparent);
  QPainter painter(&square);
  painter.drawImage((kThumb - image.width()) / 2, (kThumb - image.height()) / 2, image);
  return square;
}

QImage read_thumbnail(const QString& path) {
  QImageReader reader(path);
  const QSize size = reader.size();
  // At least a pixel on each side: a 3x400 image scales to 0x72, which QImageReader cannot make.
  if (size.isValid()) reader.setScaledSize(size.scaled(kThumb, kThumb, Qt::KeepAspectRatio).expandedTo(QSize(1, 1)));
  const QImage thumb = reader.read();
  return thumb.isNull() ? thumb : square_thumbnail(thumb);
}
}  // namespace

ThumbnailStrip::~ThumbnailStrip() {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  ++shared_->generation;
}

ThumbnailStrip::ThumbnailStrip(QWidget* parent) : QListWidget(parent) {
  setViewMode(QListView::IconMode);
  setFlow(QListView::LeftToRight);
  setWrapping(false);
  setMovement(QListView::Static);
  // Every cell the same size, whatever the images' shapes (a wide figure first in the folder once
  // set the size of all), and long names cut in the middle, where file names differ least (the
  // tooltip has the whole path). One line: at 1024x700 the window has no height to spare.
  applyCellSize();
  setTextElideMode(Qt::ElideMiddle);
  setUniformItemSizes(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
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
  // A folder without images leaves the strip as it was: it goes on showing where the image shown is.
  if (paths.isEmpty()) return 0;
  folder_ = d.absolutePath();
  setFiles(paths);
  return int(paths.size());
}

void ThumbnailStrip::setFiles(const QStringList& paths) {
  quiet_ = true;
  clear();
  files_.clear();
  const QIcon waiting = style()->standardIcon(QStyle::SP_FileIcon);
  for (const QString& path : paths) {
    auto* item = new QListWidgetItem(waiting, compact_ ? QString() : QFileInfo(path).fileName());
    item->setToolTip(path);
    addItem(item);
    files_ << path;
  }
  quiet_ = false;
  // The images are read on a worker, one after another, and each icon set as it comes: a folder
  // of large photos would otherwise freeze the window while it opens. A newer folder's list
  // makes the older one's thumbnails stale.
  std::uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    generation = ++shared_->generation;
  }
  QThreadPool::globalInstance()->start([shared = shared_, strip = this, paths, generation] {
    for (int i = 0; i < paths.size(); ++i) {
      const QImage thumb = read_thumbnail(paths[i]);
      // Posted under the lock, and only for the current list: the destructor takes the lock
      // (and moves the generation on) before the strip goes, and Qt drops events posted to it.
      std::lock_guard<std::mutex> lock(shared->mutex);
      if (shared->generation != generation) return;
      QMetaObject::invokeMethod(strip, [strip, thumb, i, generation] {
        if (strip->shared_->generation == generation) strip->showThumbnail(i, thumb);  // (the GUI thread's own)
      }, Qt::QueuedConnection);
    }
  });
}

void ThumbnailStrip::showThumbnail(int row, const QImage& thumb) {
  QListWidgetItem* it = item(row);
  if (it == nullptr) return;
  if (!thumb.isNull()) {
    it->setIcon(QIcon(QPixmap::fromImage(thumb)));
  } else {  // the name stays whole; the icon and the tooltip say it cannot be read
    it->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    it->setToolTip(tr("%1 (cannot be read as an image)").arg(files_.value(row)));
  }
}

void ThumbnailStrip::markCurrent(const QString& path) {
  if (!playing_.isEmpty()) {
    playing_.clear();
    viewport()->update();
  }
  const int row = int(files_.indexOf(QFileInfo(path).absoluteFilePath()));
  quiet_ = true;
  setCurrentRow(row);
  quiet_ = false;
}

void ThumbnailStrip::applyCellSize() {
  const int side = compact_ ? kCompactThumb : kThumb;
  setIconSize(QSize(side, side));
  setGridSize(compact_ ? QSize(side + 8, side + 6) : QSize(side + 28, side + 30));
  setFixedHeight(compact_ ? side + 24 : side + 46);  // room for the horizontal scroll bar
}

void ThumbnailStrip::setCompact(bool compact) {
  if (compact == compact_) return;
  compact_ = compact;
  applyCellSize();
  for (int i = 0; i < count() && i < files_.size(); ++i) item(i)->setText(compact ? QString() : QFileInfo(files_[i]).fileName());
}

void ThumbnailStrip::setPlaying(const QString& what) {
  quiet_ = true;
  setCurrentRow(-1);
  clearSelection();
  quiet_ = false;
  playing_ = what;
  viewport()->update();
}

void ThumbnailStrip::paintEvent(QPaintEvent* event) {
  QListWidget::paintEvent(event);
  if (playing_.isEmpty()) return;
  QPainter p(viewport());
  QColor veil = palette().color(QPalette::Base);
  veil.setAlpha(180);
  p.fillRect(viewport()->rect(), veil);
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(palette().color(QPalette::Text));
  p.drawText(viewport()->rect().adjusted(8, 0, -8, 0), Qt::AlignCenter | Qt::TextWordWrap,
             count() > 0 ? tr("▶ Playing %1 — click an image to go back to the images").arg(playing_)
                         : tr("▶ Playing %1").arg(playing_));
}

}  // namespace fovea::ui
