#pragma once
/// The studio's live part: a video file or a camera playing in place of the image, through the
/// one LiveSource, with its Video toolbar (play/pause, step, loop, seek, the frame's time) and the
/// Camera menu of the devices present. It shows each captioned frame in the panels, and says what
/// changed in the window it is part of: the shown file (ShownImage), the title, the status bar.
#include <QObject>
#include <QString>

class QAction;
class QLabel;
class QMainWindow;
class QMenu;
class QSlider;
class QToolBar;

namespace fovea::ui {

class ExplorerPanel;
class LiveSource;
struct LiveFrame;
class RecentFiles;
struct ShownImage;
class WordPlayer;

class LiveControls : public QObject {
  Q_OBJECT
 public:
  /// What the live part works with, all owned by the window.
  struct Parts {
    QMainWindow* window;
    ShownImage* shown;
    WordPlayer* player;
    ExplorerPanel* primary;
    ExplorerPanel* compare;
    RecentFiles* recent;
    QMenu* camera_menu;  ///< listed afresh each time it opens
  };
  explicit LiveControls(const Parts& parts);

  /// Opens a video file (or a camera, /dev/videoN): it plays, captioned frame by frame; false
  /// (and errorOccurred) when it cannot be opened. `remember`: add it to Open Recent.
  bool openVideo(const QString& path, bool remember = true);
  /// The first camera present (or `device`); the message names the device when none opens.
  void startWebcam(const QString& device = {});
  void stop();
  /// Pauses the caption's player, and a playing video file, while a probe or take-away shows.
  void hold();
  LiveSource* source() const { return source_; }

 Q_SIGNALS:
  /// A video or a camera opened in place of the image: what was said of the image no longer
  /// applies. `what`: the video's file name, or the camera's device.
  void started(const QString& what);
  /// Nothing plays after a failure: the window goes back to `before`, the image it showed before
  /// the video opened (empty: none). errorOccurred follows with what went wrong.
  void ended(const QString& before);
  void errorOccurred(const QString& message);

 private:
  void buildBar();
  void showFrame(const LiveFrame& frame);
  void sourceOpened(const QString& path);
  void sourceFailed(const QString& message);
  void showPlaying(bool playing);
  void fillCameraMenu();

  Parts parts_;
  LiveSource* source_;
  QString before_live_path_;  ///< the image shown before a video or camera opened (back to it if that fails)
  QToolBar* bar_ = nullptr;  ///< the video's bar, shown while a video or camera plays
  QAction* play_ = nullptr;
  QAction* loop_ = nullptr;
  QSlider* seek_ = nullptr;  ///< the frame shown (hidden for a camera)
  QLabel* time_ = nullptr;   ///< "frame N of M · T s"
};

}  // namespace fovea::ui
