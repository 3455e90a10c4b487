#pragma once
/// A folder's images as a horizontal strip of thumbnails; the arrow keys move through it and
/// the current one is opened. While a video plays the strip says so and marks no image.
#include <QImage>
#include <QListWidget>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <mutex>

namespace fovea::ui {

class ThumbnailStrip : public QListWidget {
  Q_OBJECT
 public:
  explicit ThumbnailStrip(QWidget* parent = nullptr);
  ~ThumbnailStrip() override;  ///< thumbnails still being read are dropped when they come

  /// Lists the folder's image files (sorted by name); returns how many. Does not select one. The
  /// thumbnails come a moment later, read on a worker thread. A folder without images changes nothing.
  int setFolder(const QString& dir);
  void setFiles(const QStringList& paths);
  QString folder() const { return folder_; }
  QStringList files() const { return files_; }
  /// Selects the file (if listed) without emitting imageChosen; ends setPlaying().
  void markCurrent(const QString& path);
  /// A video or a camera (`what`, its name) plays in the view: no image is marked, and the strip
  /// says what plays over its dimmed thumbnails, which still open on a click.
  void setPlaying(const QString& what);
  QString playing() const { return playing_; }
  /// For a short screen: smaller thumbnails without their names (the tooltips keep them).
  void setCompact(bool compact);
  bool isCompact() const { return compact_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 Q_SIGNALS:
  void imageChosen(const QString& path);

 private:
  void showThumbnail(int row, const QImage& thumb);

  /// Shared with the worker reading the thumbnails: the current list's number (a worker for
  /// another stops) and the lock under which it posts them.
  struct Shared {
    std::mutex mutex;
    std::uint64_t generation = 0;
  };
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  QString folder_;
  QStringList files_;
  bool quiet_ = false;
  QString playing_;
  bool compact_ = false;
  void applyCellSize();
};

}  // namespace fovea::ui
