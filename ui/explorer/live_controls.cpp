// The studio's live part: the LiveSource, the Video toolbar and the Camera menu.
#include "ui/explorer/live_controls.h"

#include <QAction>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QSlider>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <algorithm>

#include "core/data/video_io.h"
#include "ui/common/word_player.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/live_source.h"
#include "ui/explorer/recent_files.h"
#include "ui/explorer/shown_image.h"

namespace fovea::ui {

LiveControls::LiveControls(const Parts& parts)
    : QObject(parts.window), parts_(parts), source_(new LiveSource(this)) {
  buildBar();
  connect(source_, &LiveSource::frameReady, this, &LiveControls::showFrame);
  connect(source_, &LiveSource::failed, this, &LiveControls::sourceFailed);
  connect(source_, &LiveSource::opened, this, &LiveControls::sourceOpened);
  connect(source_, &LiveSource::playingChanged, this, &LiveControls::showPlaying);
  connect(parts_.camera_menu, &QMenu::aboutToShow, this, &LiveControls::fillCameraMenu);
  fillCameraMenu();
}

void LiveControls::buildBar() {
  QMainWindow* window = parts_.window;
  bar_ = new QToolBar(tr("Video"), window);
  bar_->setObjectName(QStringLiteral("videoToolbar"));
  window->addToolBarBreak(Qt::BottomToolBarArea);
  window->addToolBar(Qt::BottomToolBarArea, bar_);
  play_ = bar_->addAction(window->style()->standardIcon(QStyle::SP_MediaPause), tr("Pause the video"));
  play_->setObjectName(QStringLiteral("video-play"));
  connect(play_, &QAction::triggered, this, [this] { source_->isPlaying() ? source_->pause() : source_->play(); });
  QAction* step = bar_->addAction(window->style()->standardIcon(QStyle::SP_MediaSkipForward), tr("Step one frame"));
  step->setObjectName(QStringLiteral("video-step"));
  connect(step, &QAction::triggered, source_, &LiveSource::step);
  loop_ = bar_->addAction(tr("Loop"));
  loop_->setCheckable(true);
  loop_->setChecked(true);
  connect(loop_, &QAction::toggled, source_, &LiveSource::setLoop);
  seek_ = new QSlider(Qt::Horizontal);
  seek_->setObjectName(QStringLiteral("video-seek"));
  seek_->setToolTip(tr("Seek"));
  bar_->addWidget(seek_);
  connect(seek_, &QSlider::sliderMoved, this, [this](int frame) { source_->seek(frame); });
  time_ = new QLabel;
  time_->setMinimumWidth(140);
  bar_->addWidget(time_);
  bar_->hide();
}

bool LiveControls::openVideo(const QString& path, bool remember) {
  // What cannot be a video is said before anything shown is touched.
  const bool camera = fovea::is_camera_path(path.toStdString());
  if (!camera && !QFileInfo(path).isFile()) {
    Q_EMIT errorOccurred(tr("%1: file not found").arg(path));
    return false;
  }
  if (!camera && QFileInfo(path).size() == 0) {
    Q_EMIT errorOccurred(tr("%1: the file is empty (0 bytes): there is no video in it").arg(path));
    return false;
  }
  stop();
  Q_EMIT started(camera ? path : QFileInfo(path).fileName());
  ShownImage& shown = *parts_.shown;
  shown.live = true;
  before_live_path_ = shown.path;
  shown.path = camera ? QString() : QFileInfo(path).absoluteFilePath();
  parts_.player->setCount(0);
  if (remember && !shown.path.isEmpty()) parts_.recent->add(shown.path);
  source_->open(path);
  bar_->show();
  parts_.window->setWindowTitle(tr("%1 — Fovea Studio").arg(camera ? path : QFileInfo(path).fileName()));
  return true;
}

void LiveControls::startWebcam(const QString& device) {
  QString chosen = device;
  if (chosen.isEmpty()) {
    const auto devices = fovea::camera_devices();
    chosen = QString::fromStdString(devices.empty() ? std::string("/dev/video0") : devices.front());
  }
  parts_.window->statusBar()->showMessage(tr("Opening %1…").arg(chosen));
  openVideo(chosen, false);
}

void LiveControls::stop() {
  source_->close();
  parts_.shown->live = false;
  if (bar_) bar_->hide();
}

void LiveControls::hold() {
  parts_.player->pause();
  if (source_->isPlaying() && !source_->isCamera()) source_->pause();
}

void LiveControls::showFrame(const LiveFrame& frame) {
  parts_.primary->showLiveFrame(frame.image, frame.caption);
  if (!parts_.compare->isHidden()) parts_.compare->setLiveFrame(frame.image);  // the compared model captions when free
  if (!seek_->isSliderDown()) {
    const QSignalBlocker block(seek_);
    seek_->setValue(int(frame.index));
  }
  const long long count = source_->frameCount();
  time_->setText(count > 0 ? tr("frame %1 of %2 · %3 s").arg(frame.index + 1).arg(count).arg(frame.time, 0, 'f', 2)
                           : tr("frame %1 · %2 s").arg(frame.index + 1).arg(frame.time, 0, 'f', 2));
}

void LiveControls::sourceOpened(const QString& path) {
  const bool camera = source_->isCamera();
  seek_->setVisible(!camera);
  loop_->setVisible(!camera);
  seek_->setRange(0, int(std::max(0LL, source_->frameCount() - 1)));
  parts_.window->statusBar()->showMessage(tr("Playing %1").arg(camera ? path : QFileInfo(path).fileName()), 5000);
}

void LiveControls::sourceFailed(const QString& message) {
  bar_->setVisible(source_->isOpen());
  if (!source_->isOpen()) {
    // Nothing plays: the window goes back to the image it showed before, all of it (its title,
    // its strip, its caption with a word, the overlay and Take it away), not half in a live
    // state that no longer exists.
    parts_.shown->live = false;
    Q_EMIT ended(before_live_path_);
  }
  Q_EMIT errorOccurred(message);  // after the image reopened: opening it clears the bar
}

void LiveControls::showPlaying(bool playing) {
  play_->setIcon(parts_.window->style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  play_->setText(playing ? tr("Pause the video") : tr("Play the video"));
}

void LiveControls::fillCameraMenu() {
  QMenu* menu = parts_.camera_menu;
  const bool live = parts_.shown->live;
  menu->clear();
  const auto devices = fovea::camera_devices();
  for (const auto& d : devices) {
    const QString device = QString::fromStdString(d);
    QAction* a = menu->addAction(tr("Live Captions from %1").arg(device), this, [this, device] { startWebcam(device); });
    a->setCheckable(true);
    a->setChecked(live && source_->path() == device);
  }
  if (devices.empty()) menu->addAction(tr("No camera found (no /dev/video*)"))->setEnabled(false);
  menu->addSeparator();
  // A camera's; a video file has its own bar (pause, seek) and is left by opening something else.
  menu->addAction(tr("Stop Live Captions"), this, &LiveControls::stop)->setEnabled(live && source_->isCamera());
}

}  // namespace fovea::ui
