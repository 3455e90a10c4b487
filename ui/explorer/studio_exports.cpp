// The studio's exports: figure, web page, animation frames, view and captioned video.
#include "ui/explorer/studio_exports.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QPointer>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QThread>

#include "core/decode/caption_stabiliser.h"
#include "core/decode/captioner.h"
#include "core/io/model_name.h"
#include "core/render/figure.h"
#include "core/render/video_export.h"
#include "core/render/web_page.h"
#include "ui/common/attention_view.h"
#include "ui/common/image_convert.h"
#include "ui/common/settings_writer.h"
#include "ui/common/user_message.h"
#include "ui/explorer/decoding_controls.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/live_source.h"
#include "ui/explorer/shown_image.h"
#include "ui/export/figure_export_dialog.h"
#include "ui/export/figure_preview.h"
#include "ui/export/gallery_export.h"
#include "ui/export/job_progress.h"

namespace fovea::ui {

namespace {
const char* const kExportFolderKey = "export/last_folder";
}  // namespace

QString with_suffix_of(const QString& path, const QString& filter) {
  if (!QFileInfo(path).suffix().isEmpty()) return path;
  // A name typed without an extension takes the chosen filter's ("PDF (*.pdf)" -> .pdf).
  const auto match = QRegularExpression(QStringLiteral("\\*(\\.[A-Za-z0-9]+)")).match(filter);
  return match.hasMatch() ? path + match.captured(1) : path;
}

StudioExports::StudioExports(QMainWindow* window, const ShownImage* shown, Panels panels,
                             const DecodingControls* decoding, const LiveSource* live)
    : QObject(window),
      window_(window),
      shown_(shown),
      primary_(panels.primary),
      compare_(panels.compare),
      decoding_(decoding),
      live_(live) {}

StudioExports::~StudioExports() {
  if (video_export_) video_export_stop_->store(true), video_export_->wait();
}

bool StudioExports::hasCaption() {
  if (primary_->hasCaption() && !primary_->caption().words.empty()) return true;
  Q_EMIT errorOccurred(tr("Nothing to export yet: open an image and wait for its caption"));
  return false;
}

QString StudioExports::exportFolder() const {
  const QString last = QSettings().value(kExportFolderKey).toString();
  if (!last.isEmpty() && QFileInfo(last).isDir()) return last;
  return shown_->path.isEmpty() ? QDir::currentPath() : QFileInfo(shown_->path).absolutePath();
}

void StudioExports::wrote(const QString& folder, const QString& message) {
  remember_setting(kExportFolderKey, folder);
  window_->statusBar()->showMessage(message, 6000);
}

QString StudioExports::describeFigure(const ExportSettings& settings) const {
  if (!primary_->hasCaption() || primary_->caption().words.empty()) return tr("(no caption yet)");
  return describe_figure(settings, to_rgb(primary_->view()->image()), primary_->caption(), primary_->view()->overlayStyle());
}

bool StudioExports::exportFigure(const QString& path) {
  if (!hasCaption()) return false;
  try {
    const auto options = figure_options(ExportSettings::load(), primary_->view()->overlayStyle());
    fovea::write_figure(path.toStdString(), to_rgb(primary_->view()->image()), primary_->caption(), options);
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  wrote(QFileInfo(path).absolutePath(), tr("Wrote %1").arg(path));
  return true;
}

bool StudioExports::exportWebPage(const QString& path) {
  if (!hasCaption()) return false;
  try {
    fovea::WebPageOptions page;
    page.model = fovea::model_display_name(primary_->modelPath().toStdString());
    if (shown_->live && live_) page.source = live_->describeLatest().toStdString();  // a video's frame: which one
    page.references = shown_->shownReferences();
    page.style = primary_->view()->overlayStyle().colormap == fovea::Colormap::Spotlight ? "spotlight" : "heatmap";
    fovea::write_web_page(path.toStdString(), to_rgb(primary_->view()->image()), primary_->caption(), page);
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(tr("Export failed: %1").arg(user_text(e)));
    return false;
  }
  window_->statusBar()->showMessage(tr("Wrote %1").arg(path), 6000);
  return true;
}

bool StudioExports::exportFrames(const QString& dir) {
  if (!hasCaption()) return false;
  try {
    const auto paths = fovea::write_animation_frames(dir.toStdString(), to_rgb(primary_->view()->image()),
                                                     primary_->caption(), primary_->view()->overlayStyle());
    wrote(dir, tr("Wrote %1 frames into %2").arg(paths.size()).arg(dir));
  } catch (const std::exception& e) {
    Q_EMIT errorOccurred(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  return true;
}

bool StudioExports::exportView(const QString& path) {
  const QImage shot = window_->centralWidget()->grab().toImage();  // (the scroll area: what shows of the content)
  const QString tmp = path + QStringLiteral(".tmp.png");
  if (!shot.save(tmp, "PNG") || !(QFile::remove(path), QFile::rename(tmp, path))) {
    QFile::remove(tmp);
    Q_EMIT errorOccurred(tr("%1: could not write the PNG").arg(path));
    return false;
  }
  wrote(QFileInfo(path).absolutePath(), tr("Wrote %1").arg(path));
  return true;
}

void StudioExports::exportVideo(const QString& out) {
  if (video_export_) {
    Q_EMIT errorOccurred(tr("A video is being exported already"));
    return;
  }
  if (!shown_->live || shown_->path.isEmpty() || primary_->modelPath().isEmpty()) {
    Q_EMIT errorOccurred(tr("Export Video needs a video file and a model"));
    return;
  }
  const std::string in = shown_->path.toStdString(), path = out.toStdString(), model = primary_->modelPath().toStdString();
  const fovea::CaptionOptions options = decoding_->captionOptions();  // what the panels caption with
  fovea::VideoExportOptions style;
  style.style = primary_->view()->overlayStyle();
  auto* progress = new JobProgress(tr("Export Video"), tr("Writing %1 with its captions…").arg(QFileInfo(out).fileName()),
                                   live_ ? live_->frameCount() : 0, window_);
  auto stop = progress->stopFlag();
  video_export_stop_ = stop;
  auto report = progress->reporter();
  QPointer<StudioExports> self(this);
  auto say = [self](const QString& text, bool error) {
    QMetaObject::invokeMethod(self.data(), [self, text, error] {
      if (!self) return;
      if (error) Q_EMIT self->errorOccurred(text);
      else self->window_->statusBar()->showMessage(text, 8000);
    }, Qt::QueuedConnection);
  };
  video_export_ = QThread::create([in, path, model, options, style, stop, say, out, report] {
    try {
      fovea::Captioner captioner(model, "cpu");
      fovea::LiveCaptioner live(captioner, options);
      const auto s = fovea::export_annotated_video(in, path, live, style, [&](long long frame, const fovea::LiveCaption&) {
        return report(frame + 1);
      });
      say(stop->load() ? StudioExports::tr("Video export canceled: nothing was written")
                       : StudioExports::tr("Wrote %1 (%2 frames, codec %3)").arg(out).arg(s.frames).arg(QString::fromStdString(s.codec)),
          false);
    } catch (const std::exception& e) {
      say(QString::fromStdString(e.what()), true);
    }
  });
  connect(video_export_, &QThread::finished, progress, &QObject::deleteLater);
  connect(video_export_, &QThread::finished, this, [this] {
    video_export_->deleteLater();
    video_export_ = nullptr;
  });
  video_export_->start();
}

void StudioExports::chooseFigure() {
  FigureExportDialog options(ExportSettings::load(), [this](const ExportSettings& s) { return describeFigure(s); }, window_);
  if (options.exec() != QDialog::Accepted) return;
  options.settings().save();
  const QString base = QFileInfo(shown_->path).completeBaseName();
  const QString name = (base.isEmpty() ? QStringLiteral("fovea") : base) + QStringLiteral("-attention.pdf");
  QString filter;
  const QString path = QFileDialog::getSaveFileName(window_, tr("Export Figure"), QDir(exportFolder()).filePath(name),
                                                    tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"), &filter);
  if (!path.isEmpty()) exportFigure(with_suffix_of(path, filter));
}

void StudioExports::chooseWebPage() {
  const QString base = QFileInfo(shown_->path).completeBaseName();
  const QString path = QFileDialog::getSaveFileName(window_, tr("Export Web Page"), base + QStringLiteral("-attention.html"),
                                                    tr("Web page (*.html)"));
  if (!path.isEmpty()) exportWebPage(path);
}

void StudioExports::chooseFrames() {
  const QString dir = QFileDialog::getExistingDirectory(window_, tr("Folder for the Animation Frames"), exportFolder());
  if (!dir.isEmpty()) exportFrames(dir);
}

void StudioExports::chooseView() {
  const QString path = QFileDialog::getSaveFileName(window_, tr("Export View"), QDir(exportFolder()).filePath(QStringLiteral("fovea-view.png")),
                                                    tr("PNG (*.png)"));
  if (!path.isEmpty()) exportView(with_suffix_of(path, QStringLiteral("(*.png)")));
}

void StudioExports::chooseVideo() {
  if (!shown_->live || shown_->path.isEmpty()) {
    Q_EMIT errorOccurred(tr("Export Video needs a video file: open one first (File ▸ Open)"));
    return;
  }
  const QFileInfo in(shown_->path);
  const QString out = QFileDialog::getSaveFileName(window_, tr("Export Video with Captions"),
                                                   in.absolutePath() + "/" + in.completeBaseName() + "-captioned.mp4",
                                                   tr("Videos (*.mp4 *.avi *.mkv *.webm)"));
  if (!out.isEmpty()) exportVideo(out);
}

void StudioExports::chooseGallery() {
  // The page of the shown image's folder, as the window captions: its models, beam and overlay.
  GalleryRequest r{QFileInfo(shown_->path).absolutePath(), {}, {primary_->modelPath()}, decoding_->captionOptions(),
                   QStringLiteral("spotlight")};
  if (!compare_->isHidden() && !compare_->modelPath().isEmpty()) r.models << compare_->modelPath();
  if (primary_->view()->overlayStyle().colormap != fovea::Colormap::Spotlight) r.style = QStringLiteral("heatmap");
  if (auto* job = GalleryExport::choose(window_, r)) {
    connect(job, &GalleryExport::finished, this, [this](const QString& text, bool error) {
      if (error) Q_EMIT errorOccurred(text);
      else window_->statusBar()->showMessage(text, 8000);
    });
  }
}

}  // namespace fovea::ui
