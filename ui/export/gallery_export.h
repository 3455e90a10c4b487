#pragma once
/// File ▸ Export Gallery: a folder's gallery page, the same page `fovea export FOLDER --format
/// html` writes (both run core/render/folder_gallery.h), captioned on a worker thread behind a
/// progress dialog with Cancel (job_progress.h).
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <atomic>
#include <memory>

#include "core/decode/caption_result.h"

class QThread;

namespace fovea::ui {

class JobProgress;

struct GalleryRequest {
  QString folder;              ///< the images' folder
  QString out;                 ///< the page's file (.html)
  QStringList models;          ///< the model, and optionally one to compare
  fovea::CaptionOptions caption;
  QString style = QStringLiteral("spotlight");  ///< the first overlay shown: "spotlight" or "heatmap"
};

class GalleryExport : public QObject {
  Q_OBJECT
 public:
  /// Asks for the folder (starting at request.folder) and the page's file, then starts; nullptr
  /// when either is not chosen.
  static GalleryExport* choose(QWidget* parent, GalleryRequest request);
  /// Starts writing `request.out`; the job deletes itself when it has ended (finished() said so).
  static GalleryExport* start(QWidget* parent, const GalleryRequest& request);
  ~GalleryExport() override;

  JobProgress* progress() const { return progress_; }

 Q_SIGNALS:
  /// The job ended: what was written, or that it was canceled, or what went wrong (`error`).
  void finished(const QString& message, bool error);

 private:
  GalleryExport(QWidget* parent, const GalleryRequest& request);
  void end(const QString& message, bool error);

  QPointer<JobProgress> progress_;  ///< a child of the window, which may delete it first
  QThread* thread_ = nullptr;
  std::shared_ptr<std::atomic<bool>> stop_;
};

}  // namespace fovea::ui
