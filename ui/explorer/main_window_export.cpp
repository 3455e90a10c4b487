// MainWindow's exports: the annotated figure (PDF, SVG, PNG), the animation frames and the view,
// each into the folder of the last export (at first, the image's), and a folder's gallery page.
#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>

#include "core/render/figure.h"
#include "ui/common/settings_writer.h"
#include "ui/common/attention_view.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/common/image_convert.h"
#include "ui/explorer/main_window.h"
#include "ui/export/export_settings.h"
#include "ui/export/figure_export_dialog.h"
#include "ui/export/figure_preview.h"
#include "ui/export/gallery_export.h"

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

QString MainWindow::exportFolder() const {
  const QString last = QSettings().value(kExportFolderKey).toString();
  if (!last.isEmpty() && QFileInfo(last).isDir()) return last;
  return image_path_.isEmpty() ? QDir::currentPath() : QFileInfo(image_path_).absolutePath();
}

void MainWindow::rememberExportFolder(const QString& folder) { remember_setting(kExportFolderKey, folder); }

QString MainWindow::describeFigure(const ExportSettings& settings) const {
  if (!primary_->hasCaption() || primary_->caption().words.empty()) return tr("(no caption yet)");
  return describe_figure(settings, to_rgb(primary_->view()->image()), primary_->caption(), primary_->view()->overlayStyle());
}

bool MainWindow::exportFigure(const QString& path) {
  if (!primary_->hasCaption() || primary_->caption().words.empty()) {
    showError(tr("Nothing to export yet: open an image and wait for its caption"));
    return false;
  }
  try {
    const auto options = figure_options(ExportSettings::load(), primary_->view()->overlayStyle());
    fovea::write_figure(path.toStdString(), to_rgb(primary_->view()->image()), primary_->caption(), options);
  } catch (const std::exception& e) {
    showError(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  rememberExportFolder(QFileInfo(path).absolutePath());
  statusBar()->showMessage(tr("Wrote %1").arg(path), 6000);
  return true;
}

bool MainWindow::exportFrames(const QString& dir) {
  if (!primary_->hasCaption() || primary_->caption().words.empty()) {
    showError(tr("Nothing to export yet: open an image and wait for its caption"));
    return false;
  }
  try {
    const auto paths = fovea::write_animation_frames(dir.toStdString(), to_rgb(primary_->view()->image()),
                                                     primary_->caption(), primary_->view()->overlayStyle());
    rememberExportFolder(dir);
    statusBar()->showMessage(tr("Wrote %1 frames into %2").arg(paths.size()).arg(dir), 6000);
  } catch (const std::exception& e) {
    showError(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  return true;
}

bool MainWindow::exportView(const QString& path) {
  const QImage shot = centralWidget()->grab().toImage();  // (the scroll area: what shows of the content)
  const QString tmp = path + QStringLiteral(".tmp.png");
  if (!shot.save(tmp, "PNG") || !(QFile::remove(path), QFile::rename(tmp, path))) {
    QFile::remove(tmp);
    showError(tr("%1: could not write the PNG").arg(path));
    return false;
  }
  rememberExportFolder(QFileInfo(path).absolutePath());
  statusBar()->showMessage(tr("Wrote %1").arg(path), 6000);
  return true;
}

void MainWindow::chooseExport() {
  FigureExportDialog options(ExportSettings::load(), [this](const ExportSettings& s) { return describeFigure(s); }, this);
  if (options.exec() != QDialog::Accepted) return;
  options.settings().save();
  const QString base = QFileInfo(image_path_).completeBaseName();
  const QString name = (base.isEmpty() ? QStringLiteral("fovea") : base) + QStringLiteral("-attention.pdf");
  QString filter;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Figure"), QDir(exportFolder()).filePath(name),
                                                    tr("PDF (*.pdf);;SVG (*.svg);;PNG (*.png)"), &filter);
  if (!path.isEmpty()) exportFigure(with_suffix_of(path, filter));
}

void MainWindow::chooseFramesExport() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the Animation Frames"), exportFolder());
  if (!dir.isEmpty()) exportFrames(dir);
}

void MainWindow::chooseViewExport() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export View"), QDir(exportFolder()).filePath(QStringLiteral("fovea-view.png")),
                                                    tr("PNG (*.png)"));
  if (!path.isEmpty()) exportView(with_suffix_of(path, QStringLiteral("(*.png)")));
}

void MainWindow::chooseGalleryExport() {
  // The page of the shown image's folder, as the window captions: its models, beam and overlay.
  GalleryRequest r{QFileInfo(image_path_).absolutePath(), {}, {primary_->modelPath()}, {}, QStringLiteral("spotlight")};
  if (!compare_->isHidden() && !compare_->modelPath().isEmpty()) r.models << compare_->modelPath();
  r.caption.beam = greedy_->isChecked() ? 1 : beam_->value();
  if (primary_->view()->overlayStyle().colormap != fovea::Colormap::Spotlight) r.style = QStringLiteral("heatmap");
  if (auto* job = GalleryExport::choose(this, r))
    connect(job, &GalleryExport::finished, this, [this](const QString& text, bool error) {
      error ? showError(text) : statusBar()->showMessage(text, 8000);
    });
}

}  // namespace fovea::ui
