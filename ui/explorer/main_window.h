#pragma once
/// fovea-studio's window: assembles the explorer panels (one, or two to compare models), the
/// word player, the decoding/overlay controls, the thumbnail strip and the menus. It holds no
/// engine state itself: models live in each panel's ModelSession.
#include <QMainWindow>
#include <QStringList>

#include "core/eval/reference_captions.h"

#include <atomic>
#include <memory>

#include "ui/export/export_settings.h"

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSlider;
class QSpinBox;
class QSplitter;
class QThread;
class QToolBar;
class QToolButton;

namespace fovea::ui {

class ErrorBar;
class ExplorerPanel;
class ImageSizeSync;
class RecentFiles;
class ThumbnailStrip;
class TrainingWindow;
class LiveSource;
struct LiveFrame;
class WordPlayer;

/// `path`, with the extension of the file dialog's `filter` ("PDF (*.pdf)") when it has none.
QString with_suffix_of(const QString& path, const QString& filter);

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// `remember`: add it to Open Recent (not for browsing the folder's thumbnails).
  bool openImage(const QString& path, bool remember = true);
  int openFolder(const QString& dir);
  void loadModel(const QString& path);
  void loadCompareModel(const QString& path);
  void setCompareVisible(bool visible);
  void setUserCaption(const QString& text);
  void setBeam(int beam);
  void setSampleGlimpses(bool on);
  /// Whether sampled glimpses can be asked for: a hard-attention model is shown.
  bool glimpseSwitchEnabled() const;
  /// The annotated figure of the main panel's caption (PNG, SVG or PDF by extension).
  bool exportFigure(const QString& path);
  /// The caption as a self-contained web page (core/render/web_page.h).
  bool exportWebPage(const QString& path);
  /// The figure Export Figure would write with `settings`: its panels and size (the dialog's preview).
  QString describeFigure(const ExportSettings& settings) const;
  bool exportFrames(const QString& dir);
  bool exportView(const QString& path);
  /// Opens a video file (or a camera, /dev/videoN) through the live source: it plays, captioned
  /// frame by frame; false (and the error shown) when it cannot be opened.
  bool openVideo(const QString& path, bool remember = true);
  /// The first camera present (or `device`); the message names the device when none opens.
  void startWebcam(const QString& device = {});
  void stopLive();
  /// Writes the open video file with its live captions (core/render/video_export.h) to `out`, on
  /// a worker thread; the status bar says when it is done, the error bar what went wrong.
  void exportVideo(const QString& out);
  bool isExportingVideo() const { return video_export_ != nullptr; }
  LiveSource* liveSource() const { return live_source_; }

  ExplorerPanel* primaryPanel() const { return primary_; }
  ExplorerPanel* comparePanel() const { return compare_; }
  WordPlayer* player() const { return player_; }
  ThumbnailStrip* thumbnails() const { return thumbs_; }
  QString errorText() const;
  QStringList recentFiles() const;
  /// Help ▸ Quick Start's text, and Help ▸ Keyboard Shortcuts' table (from the actions' shortcuts).
  QString quickStartText() const;
  QString shortcutsText() const;
  QString imagePath() const { return image_path_; }  ///< the image shown (absolute), empty for none or the webcam
  /// The training window (created on first use; a separate top-level window).
  TrainingWindow* trainingWindow();
  void showTrainingWindow();
  /// The view as the last session left it: beam, greedy, overlay, opacity, smooth, speed and the
  /// window's geometry (main_window_settings.cpp). Saved when the window closes.
  void restoreView();
  /// The model the last session had loaded, when that file is still there; else empty.
  QString rememberedModel() const;

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void rememberView() const;
  void rememberModel(const QString& path);
  /// The folder export dialogs open in: the last export's, else the image's.
  QString exportFolder() const;
  void rememberExportFolder(const QString& folder);
  /// Pauses the caption's player, and a playing video file, while a probe or take-away shows.
  void holdWord();
  /// Closes this window, hidden while a run stopped for the quit, and quits the application.
  void closeHiddenAndQuit();
  void buildActions();
  void buildControls();
  void showError(const QString& message);
  void clearError();
  /// Takes `message` off the error bar (hidden when nothing is left): it no longer applies.
  void withdrawError(const QString& message);
  void applyDecoding();
  /// Offers sampled glimpses only while a hard-attention model is shown.
  void updateGlimpseSwitch();
  void applyOverlayStyle();
  void captionArrived();
  void chooseImage();
  void chooseFolder();
  void chooseModel(bool compare);
  void chooseExport();
  void chooseWebPageExport();
  void chooseFramesExport();
  void chooseViewExport();
  void chooseGalleryExport();  ///< File ▸ Export Gallery of a Folder (ui/export/gallery_export.h)
  void buildLiveControls();  ///< the Video toolbar and the Camera menu (main_window_live.cpp)
  void showLiveFrame(const LiveFrame& frame);
  void fillCameraMenu();
  void chooseVideoExport();

  ExplorerPanel* primary_;
  ExplorerPanel* compare_;
  QSplitter* splitter_;
  WordPlayer* player_;
  ThumbnailStrip* thumbs_;
  LiveSource* live_source_;
  QToolBar* live_bar_ = nullptr;
  QAction* live_play_ = nullptr;
  QAction* live_loop_ = nullptr;
  QSlider* live_seek_ = nullptr;
  QLabel* live_time_ = nullptr;
  QMenu* camera_menu_ = nullptr;
  QThread* video_export_ = nullptr;
  std::shared_ptr<std::atomic<bool>> video_export_stop_;
  TrainingWindow* training_window_ = nullptr;
  ErrorBar* error_bar_ = nullptr;  ///< over the top of the content (ui/explorer/error_bar.h)
  QMenu* recent_menu_ = nullptr;
  RecentFiles* recent_ = nullptr;
  ImageSizeSync* size_sync_ = nullptr;  ///< compared panels show the image at one size
  QMenu* playback_menu_ = nullptr;
  QAction* compare_action_ = nullptr;
  QToolButton* play_button_ = nullptr;
  QSpinBox* beam_ = nullptr;
  QCheckBox* greedy_ = nullptr;
  QCheckBox* sample_glimpses_ = nullptr;
  QComboBox* colormap_ = nullptr;
  QSlider* opacity_ = nullptr;
  QSlider* speed_ = nullptr;
  QCheckBox* smooth_ = nullptr;
  QLineEdit* user_caption_ = nullptr;
  QWidget* user_caption_row_ = nullptr;
  fovea::ReferenceCaptions references_;  ///< of the shown image's folder (captions.json), if any
  QString references_dir_;
  void showReferences();  ///< each panel's caption against the shown image's references  ///< the typed caption's field and "Model's caption", under the panels
  QString image_path_;
  QString before_live_path_;  ///< the image shown before a video or camera opened (back to it if that fails)
  QString shown_image_;      ///< the image of the caption shown
  QStringList shown_words_;  ///< that caption's words
  bool live_ = false;
};

}  // namespace fovea::ui
