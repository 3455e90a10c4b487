// MainWindow's live part: a video file or a camera through the one LiveSource, its Video toolbar
// (play/pause, step, loop, seek) and the Camera menu of the devices present.
#include <QAction>
#include <QCheckBox>
#include <QFileDialog>
#include <QPointer>
#include <QThread>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <algorithm>

#include "core/data/video_io.h"
#include "core/decode/caption_stabiliser.h"
#include "core/decode/captioner.h"
#include "core/render/video_export.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/common/attention_view.h"
#include "ui/explorer/live_source.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/recent_files.h"
#include "ui/explorer/thumbnail_strip.h"
#include "ui/export/job_progress.h"
#include "ui/common/word_player.h"

namespace fovea::ui {

void MainWindow::holdWord() {
  player_->pause();
  if (live_source_->isPlaying() && !live_source_->isCamera()) live_source_->pause();
}

void MainWindow::buildLiveControls() {
  live_bar_ = new QToolBar(tr("Video"), this);
  live_bar_->setObjectName(QStringLiteral("videoToolbar"));
  addToolBarBreak(Qt::BottomToolBarArea);
  addToolBar(Qt::BottomToolBarArea, live_bar_);
  live_play_ = live_bar_->addAction(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause the video"));
  live_play_->setObjectName(QStringLiteral("video-play"));
  connect(live_play_, &QAction::triggered, this, [this] {
    live_source_->isPlaying() ? live_source_->pause() : live_source_->play();
  });
  QAction* step = live_bar_->addAction(style()->standardIcon(QStyle::SP_MediaSkipForward), tr("Step one frame"));
  step->setObjectName(QStringLiteral("video-step"));
  connect(step, &QAction::triggered, live_source_, &LiveSource::step);
  live_loop_ = live_bar_->addAction(tr("Loop"));
  live_loop_->setCheckable(true);
  live_loop_->setChecked(true);
  connect(live_loop_, &QAction::toggled, live_source_, &LiveSource::setLoop);
  live_seek_ = new QSlider(Qt::Horizontal);
  live_seek_->setObjectName(QStringLiteral("video-seek"));
  live_seek_->setToolTip(tr("Seek"));
  live_bar_->addWidget(live_seek_);
  connect(live_seek_, &QSlider::sliderMoved, this, [this](int frame) { live_source_->seek(frame); });
  live_time_ = new QLabel;
  live_time_->setMinimumWidth(140);
  live_bar_->addWidget(live_time_);
  live_bar_->hide();

  connect(live_source_, &LiveSource::frameReady, this, &MainWindow::showLiveFrame);
  connect(live_source_, &LiveSource::failed, this, [this](const QString& message) {
    live_bar_->setVisible(live_source_->isOpen());
    if (!live_source_->isOpen()) {
      // Nothing plays: the window is back on the image it showed before, all of it (its title,
      // its strip, its caption with a word, the overlay and Take it away), not half in a live
      // state that no longer exists.
      live_ = false;
      const QString back = before_live_path_;
      if (back.isEmpty() || !openImage(back, false)) {
        image_path_ = back;
        setWindowTitle(back.isEmpty() ? tr("Fovea Studio") : tr("%1 — Fovea Studio").arg(QFileInfo(back).fileName()));
        thumbs_->markCurrent(back);
        showReferences();
      }
    }
    showError(message);  // after the image reopened: opening it clears the bar
  });
  connect(live_source_, &LiveSource::opened, this, [this](const QString& path) {
    const bool camera = live_source_->isCamera();
    live_seek_->setVisible(!camera);
    live_loop_->setVisible(!camera);
    live_seek_->setRange(0, int(std::max(0LL, live_source_->frameCount() - 1)));
    statusBar()->showMessage(tr("Playing %1").arg(camera ? path : QFileInfo(path).fileName()), 5000);
  });
  connect(live_source_, &LiveSource::playingChanged, this, [this](bool playing) {
    live_play_->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    live_play_->setText(playing ? tr("Pause the video") : tr("Play the video"));
  });
  fillCameraMenu();
}

void MainWindow::fillCameraMenu() {
  camera_menu_->clear();
  const auto devices = fovea::camera_devices();
  for (const auto& d : devices) {
    const QString device = QString::fromStdString(d);
    QAction* a = camera_menu_->addAction(tr("Live Captions from %1").arg(device), this, [this, device] { startWebcam(device); });
    a->setCheckable(true);
    a->setChecked(live_ && live_source_->path() == device);
  }
  if (devices.empty()) camera_menu_->addAction(tr("No camera found (no /dev/video*)"))->setEnabled(false);
  camera_menu_->addSeparator();
  // A camera's; a video file has its own bar (pause, seek) and is left by opening something else.
  camera_menu_->addAction(tr("Stop Live Captions"), this, &MainWindow::stopLive)->setEnabled(live_ && live_source_->isCamera());
}

bool MainWindow::openVideo(const QString& path, bool remember) {
  // What cannot be a video is said before anything shown is touched.
  const std::string p = path.toStdString();
  if (!fovea::is_camera_path(p) && !QFileInfo(path).isFile()) {
    showError(tr("%1: file not found").arg(path));
    return false;
  }
  if (!fovea::is_camera_path(p) && QFileInfo(path).size() == 0) {
    showError(tr("%1: the file is empty (0 bytes): there is no video in it").arg(path));
    return false;
  }
  stopLive();
  clearError();
  live_ = true;
  before_live_path_ = image_path_;
  image_path_ = fovea::is_camera_path(p) ? QString() : QFileInfo(path).absoluteFilePath();
  player_->setCount(0);
  if (remember && !image_path_.isEmpty()) recent_->add(image_path_);
  live_source_->open(path);
  thumbs_->setPlaying(fovea::is_camera_path(p) ? path : QFileInfo(path).fileName());
  live_bar_->show();
  setWindowTitle(tr("%1 — Fovea Studio").arg(fovea::is_camera_path(p) ? path : QFileInfo(path).fileName()));
  return true;
}

void MainWindow::startWebcam(const QString& device) {
  QString chosen = device;
  if (chosen.isEmpty()) {
    const auto devices = fovea::camera_devices();
    chosen = QString::fromStdString(devices.empty() ? std::string("/dev/video0") : devices.front());
  }
  statusBar()->showMessage(tr("Opening %1…").arg(chosen));
  openVideo(chosen, false);
}

void MainWindow::stopLive() {
  live_source_->close();
  live_ = false;
  if (live_bar_) live_bar_->hide();
}

void MainWindow::showLiveFrame(const LiveFrame& frame) {
  primary_->showLiveFrame(frame.image, frame.caption);
  if (!compare_->isHidden()) compare_->setLiveFrame(frame.image);  // the compared model captions when free
  if (!live_seek_->isSliderDown()) {
    const QSignalBlocker block(live_seek_);
    live_seek_->setValue(int(frame.index));
  }
  const long long count = live_source_->frameCount();
  live_time_->setText(count > 0 ? tr("frame %1 of %2 · %3 s").arg(frame.index + 1).arg(count).arg(frame.time, 0, 'f', 2)
                                : tr("frame %1 · %2 s").arg(frame.index + 1).arg(frame.time, 0, 'f', 2));
}

void MainWindow::chooseVideoExport() {
  if (!live_ || image_path_.isEmpty()) {
    showError(tr("Export Video needs a video file: open one first (File ▸ Open)"));
    return;
  }
  const QFileInfo in(image_path_);
  const QString out = QFileDialog::getSaveFileName(this, tr("Export Video with Captions"),
                                                   in.absolutePath() + "/" + in.completeBaseName() + "-captioned.mp4",
                                                   tr("Videos (*.mp4 *.avi *.mkv *.webm)"));
  if (!out.isEmpty()) exportVideo(out);
}

void MainWindow::exportVideo(const QString& out) {
  if (video_export_) {
    showError(tr("A video is being exported already"));
    return;
  }
  if (!live_ || image_path_.isEmpty() || primary_->modelPath().isEmpty()) {
    showError(tr("Export Video needs a video file and a model"));
    return;
  }
  const std::string in = image_path_.toStdString(), path = out.toStdString(), model = primary_->modelPath().toStdString();
  fovea::CaptionOptions options;
  options.beam = greedy_->isChecked() ? 1 : beam_->value();
  fovea::VideoExportOptions style;
  style.style = primary_->view()->overlayStyle();
  auto* progress = new JobProgress(tr("Export Video"), tr("Writing %1 with its captions…").arg(QFileInfo(out).fileName()),
                                   live_source_->frameCount(), this);
  auto stop = progress->stopFlag();
  video_export_stop_ = stop;
  auto report = progress->reporter();
  QPointer<MainWindow> self(this);
  auto say = [self](const QString& text, bool error) {
    QMetaObject::invokeMethod(self.data(), [self, text, error] {
      if (self) error ? self->showError(text) : self->statusBar()->showMessage(text, 8000);
    }, Qt::QueuedConnection);
  };
  video_export_ = QThread::create([in, path, model, options, style, stop, say, out, report] {
    try {
      fovea::Captioner captioner(model, "cpu");
      fovea::LiveCaptioner live(captioner, options);
      const auto s = fovea::export_annotated_video(in, path, live, style, [&](long long frame, const fovea::LiveCaption&) {
        return report(frame + 1);
      });
      say(stop->load() ? MainWindow::tr("Video export canceled: nothing was written")
                       : MainWindow::tr("Wrote %1 (%2 frames, codec %3)").arg(out).arg(s.frames).arg(QString::fromStdString(s.codec)), false);
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

}  // namespace fovea::ui
