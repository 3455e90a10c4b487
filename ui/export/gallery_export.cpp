#include "ui/export/gallery_export.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QPointer>
#include <QThread>

#include "core/eval/reference_captions.h"
#include "core/render/folder_gallery.h"
#include "ui/common/user_message.h"
#include "ui/export/job_progress.h"

namespace fovea::ui {

GalleryExport* GalleryExport::choose(QWidget* parent, GalleryRequest request) {
  request.folder = QFileDialog::getExistingDirectory(parent, tr("Folder of Images for the Gallery"), request.folder);
  if (request.folder.isEmpty()) return nullptr;
  const QString name = QDir(request.folder).dirName() + QStringLiteral("-gallery.html");
  request.out = QFileDialog::getSaveFileName(parent, tr("Export Gallery"), QDir(request.folder).filePath(name), tr("Web page (*.html)"));
  if (request.out.isEmpty()) return nullptr;
  if (QFileInfo(request.out).suffix().isEmpty()) request.out += QStringLiteral(".html");
  return start(parent, request);
}

GalleryExport* GalleryExport::start(QWidget* parent, const GalleryRequest& request) { return new GalleryExport(parent, request); }

GalleryExport::GalleryExport(QWidget* parent, const GalleryRequest& request) : QObject(parent) {
  long long images = 0;
  try {
    images = (long long)fovea::gallery_images(request.folder.toStdString()).size();
  } catch (const std::exception&) {  // the worker says what is wrong with the folder
  }
  progress_ = new JobProgress(tr("Export Gallery"), tr("Captioning the images of %1…").arg(QDir(request.folder).dirName()), images, parent);
  stop_ = progress_->stopFlag();
  fovea::FolderGalleryOptions options;
  for (const auto& m : request.models) options.models.push_back(m.toStdString());
  options.caption = request.caption;
  options.style = request.style.toStdString();
  auto report = progress_->reporter();
  options.progress = [report](int done, int) { return report(done); };
  const std::string folder = request.folder.toStdString(), out = request.out.toStdString();
  QPointer<GalleryExport> self(this);
  const auto say = [self](const QString& message, bool error) {
    QMetaObject::invokeMethod(QCoreApplication::instance(), [self, message, error] { if (self) self->end(message, error); }, Qt::QueuedConnection);
  };
  thread_ = QThread::create([folder, out, options, say]() mutable {
    try {
      const auto references = fovea::ReferenceCaptions::read_folder(folder);
      options.references = [&](const std::string& name) { return references.of(name); };
      const auto written = fovea::write_folder_gallery(folder, out, options);
      if (written.stopped) return say(tr("Gallery export canceled: nothing was written"), false);
      QString text = tr("Wrote %1 (a gallery page of %2 images)").arg(QString::fromStdString(out)).arg(written.images);
      if (!written.left_out.empty()) text += tr("; left out: %1").arg(QString::fromStdString(written.left_out.front()));
      say(text, !written.left_out.empty());
    } catch (const std::exception& e) {
      say(tr("Gallery export failed: %1").arg(user_text(e)), true);
    }
  });
  thread_->start();
}

GalleryExport::~GalleryExport() {
  if (thread_) {  // the window closes while it runs: stop at the next image
    stop_->store(true);
    thread_->wait();
    delete thread_;
  }
  delete progress_.data();
}

void GalleryExport::end(const QString& message, bool error) {
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
  delete progress_.data();
  Q_EMIT finished(message, error);
  deleteLater();
}

}  // namespace fovea::ui
