#pragma once
/// fovea-studio's window: an assembly of parts that each own their state and signals: the
/// explorer panels (one, or two to compare models; models live in each panel's ModelSession), the
/// word player and its controls (playback_controls.h), the decoding and overlay controls
/// (decoding_controls.h), the live video and camera part (live_controls.h), the exports
/// (studio_exports.h), the menus (studio_menus.h) and the thumbnail strip. The window itself
/// opens images and folders, loads models, and keeps the panels and the player in step.
#include <QMainWindow>
#include <QStringList>

#include "ui/explorer/shown_image.h"

class QLineEdit;
class QSplitter;
class QVBoxLayout;

namespace fovea::ui {

class DecodingControls;
class ErrorBar;
class ExplorerPanel;
class ImageSizeSync;
class LiveControls;
class LiveSource;
class PlaybackControls;
class RecentFiles;
class StudioExports;
class StudioMenus;
class ThumbnailStrip;
class TrainingWindow;
class WordPlayer;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// An image (a video file opens through live()); `remember`: add it to Open Recent (not for
  /// browsing the folder's thumbnails).
  bool openImage(const QString& path, bool remember = true);
  int openFolder(const QString& dir);
  void loadModel(const QString& path);
  void loadCompareModel(const QString& path);
  void setCompareVisible(bool visible);
  void setUserCaption(const QString& text);

  ExplorerPanel* primaryPanel() const { return primary_; }
  ExplorerPanel* comparePanel() const { return compare_; }
  WordPlayer* player() const { return player_; }
  ThumbnailStrip* thumbnails() const { return thumbs_; }
  DecodingControls* decoding() const { return decoding_; }
  LiveControls* live() const { return live_; }
  LiveSource* liveSource() const;
  StudioExports* exports() const { return exports_; }
  QString errorText() const;
  QStringList recentFiles() const;
  QString imagePath() const { return shown_.path; }  ///< the image shown (absolute), empty for none or the webcam
  /// The training window (created on first use; a separate top-level window).
  TrainingWindow* trainingWindow();
  void showTrainingWindow();
  /// The view as the last session left it: beam, greedy, overlay, opacity, smooth, speed and the
  /// window's geometry. Saved when the window closes.
  void restoreView();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildContent();
  void buildControls(QVBoxLayout* content);
  void connectPanel(ExplorerPanel* panel);
  void connectParts();
  void showError(const QString& message);
  void captionArrived();

  ExplorerPanel* primary_;
  ExplorerPanel* compare_;
  QSplitter* splitter_;
  WordPlayer* player_;
  ThumbnailStrip* thumbs_;
  ShownImage shown_;
  StudioMenus* menus_ = nullptr;
  PlaybackControls* playback_ = nullptr;
  DecodingControls* decoding_ = nullptr;
  LiveControls* live_ = nullptr;
  StudioExports* exports_ = nullptr;
  TrainingWindow* training_window_ = nullptr;
  ErrorBar* error_bar_ = nullptr;  ///< over the top of the content (ui/explorer/error_bar.h)
  RecentFiles* recent_ = nullptr;
  ImageSizeSync* size_sync_ = nullptr;  ///< compared panels show the image at one size
  QLineEdit* user_caption_ = nullptr;  ///< the typed caption's field, under the panels
  QString shown_image_;      ///< the image of the caption shown
  QStringList shown_words_;  ///< that caption's words
  bool quit_after_stop_ = false;  ///< closed while a run trained: close and quit once it has stopped
};

}  // namespace fovea::ui
