#pragma once
/// The studio's exports of what its main panel shows: the annotated figure (PNG, SVG, PDF), the
/// caption as a web page, the animation frames, the view as a PNG, and the open video with its
/// live captions (on a worker thread). Each into the folder of the last export (at first, the
/// image's); the status bar says what was written, errorOccurred what went wrong.
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

#include "ui/export/export_settings.h"

class QMainWindow;
class QThread;

namespace fovea::ui {

class DecodingControls;
class ExplorerPanel;
class LiveSource;
struct ShownImage;

/// `path`, with the extension of the file dialog's `filter` ("PDF (*.pdf)") when it has none.
QString with_suffix_of(const QString& path, const QString& filter);

class StudioExports : public QObject {
  Q_OBJECT
 public:
  /// The window's two panels: the main one and the compared one (hidden when not comparing).
  struct Panels {
    ExplorerPanel* primary;
    ExplorerPanel* compare;
  };
  /// Exports what `panels.primary` shows of `shown`, with `decoding`'s choices (the video's
  /// captions); `live` names the video frame a web page shows.
  StudioExports(QMainWindow* window, const ShownImage* shown, Panels panels, const DecodingControls* decoding,
                const LiveSource* live);
  ~StudioExports() override;  ///< stops a video export and waits for it

  /// The annotated figure of the main panel's caption (PNG, SVG or PDF by extension).
  bool exportFigure(const QString& path);
  /// The caption as a self-contained web page (core/render/web_page.h).
  bool exportWebPage(const QString& path);
  /// The figure Export Figure would write with `settings`: its panels and size (the dialog's preview).
  QString describeFigure(const ExportSettings& settings) const;
  bool exportFrames(const QString& dir);
  bool exportView(const QString& path);
  /// Writes the open video file with its live captions (core/render/video_export.h) to `out`, on
  /// a worker thread; the status bar says when it is done, the error bar what went wrong.
  void exportVideo(const QString& out);
  bool isExportingVideo() const { return video_export_ != nullptr; }

  /// The File menu's exports: each asks where (and the figure how), then writes.
  void chooseFigure();
  void chooseWebPage();
  void chooseFrames();
  void chooseView();
  void chooseVideo();
  /// File ▸ Export Gallery of a Folder: the shown image's folder, as the window captions (its
  /// models, beam and overlay), behind a progress dialog (ui/export/gallery_export.h).
  void chooseGallery();

 Q_SIGNALS:
  void errorOccurred(const QString& message);

 private:
  /// False (and the error said) when there is no caption to export yet.
  bool hasCaption();
  /// The folder export dialogs open in: the last export's, else the image's.
  QString exportFolder() const;
  /// Remembers `folder` as the last export's and says `message` on the status bar.
  void wrote(const QString& folder, const QString& message);

  QMainWindow* window_;
  const ShownImage* shown_;
  ExplorerPanel* primary_;
  ExplorerPanel* compare_;
  const DecodingControls* decoding_;
  const LiveSource* live_;
  QThread* video_export_ = nullptr;
  std::shared_ptr<std::atomic<bool>> video_export_stop_;
};

}  // namespace fovea::ui
