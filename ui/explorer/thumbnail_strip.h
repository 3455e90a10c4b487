#pragma once
/// A folder's images as a horizontal strip of thumbnails; the arrow keys move through it and
/// the current one is opened.
#include <QListWidget>
#include <QStringList>

namespace fovea::ui {

class ThumbnailStrip : public QListWidget {
  Q_OBJECT
 public:
  explicit ThumbnailStrip(QWidget* parent = nullptr);

  /// Lists the folder's image files (sorted by name); returns how many. Does not select one.
  int setFolder(const QString& dir);
  void setFiles(const QStringList& paths);
  QString folder() const { return folder_; }
  QStringList files() const { return files_; }
  /// Selects the file (if listed) without emitting imageChosen.
  void markCurrent(const QString& path);

 Q_SIGNALS:
  void imageChosen(const QString& path);

 private:
  QString folder_;
  QStringList files_;
  bool quiet_ = false;
};

}  // namespace fovea::ui
