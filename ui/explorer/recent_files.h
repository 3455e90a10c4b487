#pragma once
/// File ▸ Open Recent: the last images opened (QSettings), named by file name, with the folder
/// where two share a name; choosing one opens it again.
#include <QObject>
#include <QStringList>

#include <functional>

class QMenu;

namespace fovea::ui {

class RecentFiles : public QObject {
  Q_OBJECT
 public:
  /// Fills `menu` (owned by the caller); `open` is called with the path chosen.
  RecentFiles(QMenu* menu, std::function<void(const QString&)> open, QObject* parent = nullptr);

  void add(const QString& path);
  QStringList files() const;

 private:
  void refresh();

  QMenu* menu_;
  std::function<void(const QString&)> open_;
};

}  // namespace fovea::ui
