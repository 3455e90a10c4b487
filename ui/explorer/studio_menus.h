#pragma once
/// fovea-studio's menu bar (File, View, Playback, Camera, Training, Help) and main toolbar: the
/// actions, their shortcuts, and the dialogs that ask which image, folder or model to open. The
/// Playback and Camera menus are filled by the parts they belong to (playback_controls.h,
/// live_controls.h), Open Recent by RecentFiles.
#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;

namespace fovea::ui {

class MainWindow;

class StudioMenus : public QObject {
  Q_OBJECT
 public:
  explicit StudioMenus(MainWindow* window);

  QAction* compareAction() const { return compare_; }  ///< View ▸ Compare Two Models Side by Side
  QMenu* recentMenu() const { return recent_; }
  QMenu* playbackMenu() const { return playback_; }
  QMenu* cameraMenu() const { return camera_; }

  /// Help ▸ Quick Start's text, and Help ▸ Keyboard Shortcuts' table (from `window`'s actions'
  /// shortcuts, so the list is what the keys do).
  static QString quickStartText();
  static QString shortcutsText(const QMainWindow& window);

 private:
  void buildFileMenu();
  void addModelMenus(QMenu* file);
  void addExports(QMenu* file);
  void buildHelpMenu();
  void chooseImage();
  void chooseFolder();
  void chooseModel(bool compare);

  MainWindow* window_;
  QAction* open_ = nullptr;           ///< File ▸ Open Image…
  QAction* open_folder_ = nullptr;    ///< File ▸ Open Folder…
  QAction* export_figure_ = nullptr;  ///< File ▸ Export Figure…
  QAction* compare_ = nullptr;        ///< View ▸ Compare Two Models Side by Side
  QMenu* recent_ = nullptr;           ///< File ▸ Open Recent
  QMenu* playback_ = nullptr;         ///< the player's actions (playback_controls.h)
  QMenu* camera_ = nullptr;           ///< the cameras present, listed as it opens (live_controls.h)
};

}  // namespace fovea::ui
