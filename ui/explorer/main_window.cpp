#include "ui/explorer/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>

#include <algorithm>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QThread>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/data/video_io.h"
#include "core/render/figure.h"
#include "ui/common/user_message.h"
#include "ui/common/window_fit.h"
#include "ui/export/export_settings.h"
#include "ui/export/figure_export_dialog.h"
#include "ui/export/figure_preview.h"
#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/compact_layout.h"
#include "ui/explorer/error_bar.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/common/image_convert.h"
#include "ui/explorer/image_size_sync.h"
#include "ui/explorer/recent_files.h"
#include "ui/explorer/resource_paths.h"
#include "ui/explorer/thumbnail_strip.h"
#include "ui/explorer/live_source.h"
#include "ui/common/word_player.h"
#include "ui/training/training_window.h"

namespace fovea::ui {
MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), primary_(new ExplorerPanel), compare_(new ExplorerPanel), splitter_(new QSplitter),
      player_(new WordPlayer(this)), thumbs_(new ThumbnailStrip), live_source_(new LiveSource(this)) {
  setWindowTitle(tr("Fovea Studio"));
  setAcceptDrops(false);  // the attention views take drops

  splitter_->addWidget(primary_);
  splitter_->addWidget(compare_);
  compare_->hide();

  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 6);
  layout->addWidget(splitter_, 1);
  layout->addWidget(thumbs_);
  // On a short screen (1920x1080 at 150% or 200% is 1280x720 or 960x540) everything below the
  // image would end under the screen's edge: the window's content scrolls there instead, and
  // the toolbars and the status bar stay in view. On a screen with room it never scrolls. The
  // error bar floats over its top (as a row above it, each line took height from the picture).
  auto* scroll = new QScrollArea;
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setFocusPolicy(Qt::NoFocus);  // not a Tab stop with no mark: it scrolls to the focused control
  scroll->viewport()->setBackgroundRole(QPalette::Window);
  auto* central = new QWidget;
  auto* outer = new QVBoxLayout(central);
  outer->setContentsMargins(6, 6, 6, 0);
  outer->addWidget(scroll, 1);
  setCentralWidget(central);
  error_bar_ = new ErrorBar(central);  // non-modal, names the file; the window keeps working

  buildActions();
  buildControls();
  layout->insertWidget(layout->indexOf(thumbs_), user_caption_row_);
  new CompactLayout(this);  // on a short screen the image keeps its room

  compare_->setModelRole(tr("the model to compare with"));
  for (ExplorerPanel* panel : {primary_, compare_}) {
    connect(panel, &ExplorerPanel::errorOccurred, this, &MainWindow::showError);
    connect(panel, &ExplorerPanel::captionShown, this, &MainWindow::captionArrived);
    connect(panel, &ExplorerPanel::wordClicked, this, [this](int i) {
      player_->pause();
      player_->setCurrent(i);
    });
    connect(panel, &ExplorerPanel::wordHeld, this, &MainWindow::holdWord);
    // Hover previews the word in both panels while the pointer is on its chip; only a click selects.
    connect(panel, &ExplorerPanel::wordHovered, this, [this](int i) {
      if (player_->isPlaying()) return;
      primary_->previewWord(i);
      compare_->previewWord(i);
    });
    connect(panel->view(), &AttentionView::fileDropped, this, [this](const QString& path) { openImage(path); });
    // A model that failed to load is named until another loads in its panel; the panel goes on
    // with the one it had, and so does the video source (it is given only models that loaded).
    auto load_error = std::make_shared<QString>();
    connect(panel, &ExplorerPanel::modelFailed, this, [this, load_error](const QString& message) {
      *load_error = message;
      showError(message);
    });
    connect(panel, &ExplorerPanel::modelLoaded, this, [this, panel, load_error](const ModelDescription& m) {
      withdrawError(*load_error);
      load_error->clear();
      statusBar()->showMessage(tr("Loaded %1 (%2)").arg(m.path, m.summary), 8000);
      updateGlimpseSwitch();
      if (panel != primary_) return;
      rememberModel(m.path);
      live_source_->setModel(m.path);  // the next video or camera opened is captioned with it
      if (live_source_->isOpen()) live_source_->open(live_source_->path());  // and the one open, from its start
    });
  }
  connect(player_, &WordPlayer::currentChanged, this, [this](int i) {
    primary_->setWordIndex(i);
    compare_->setWordIndex(i);
  });
  connect(player_, &WordPlayer::playingChanged, this, [this](bool playing) {
    play_button_->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    play_button_->setToolTip(playing ? tr("Pause (Space)") : tr("Play the caption word by word (Space)"));
  });
  connect(thumbs_, &ThumbnailStrip::imageChosen, this, [this](const QString& path) { openImage(path, false); });
  buildLiveControls();

  recent_ = new RecentFiles(recent_menu_, [this](const QString& path) { openImage(path); }, this);
  size_sync_ = new ImageSizeSync(primary_->view(), compare_->view(), this);
  applyOverlayStyle();
  applyDecoding();
  fit_to_screen(this, {1180, 860});
  statusBar()->showMessage(tr("Open an image (Ctrl+O), a folder (Ctrl+Shift+O), drop a file, or pick a sample below"));
}

MainWindow::~MainWindow() {
  live_source_->close();
  if (video_export_) video_export_stop_->store(true), video_export_->wait();
}

void MainWindow::applyDecoding() {
  fovea::CaptionOptions o;
  o.beam = greedy_->isChecked() ? 1 : beam_->value();
  o.sample_glimpses = sample_glimpses_->isChecked();
  beam_->setEnabled(!greedy_->isChecked());
  updateGlimpseSwitch();
  primary_->setCaptionOptions(o);
  compare_->setCaptionOptions(o);
  live_source_->setCaptionOptions(o);
}

void MainWindow::setBeam(int beam) {
  greedy_->setChecked(beam <= 1);
  if (beam > 1) beam_->setValue(beam);
}

void MainWindow::setSampleGlimpses(bool on) { sample_glimpses_->setChecked(on); }

void MainWindow::updateGlimpseSwitch() {
  bool hard = false;
  for (const ExplorerPanel* panel : {primary_, compare_}) {
    const auto* model = panel->session()->model();
    if (model && (panel == primary_ || !panel->isHidden())) hard |= model->attention == QLatin1String("hard");
  }
  sample_glimpses_->setEnabled(hard);
  sample_glimpses_->setToolTip(hard ? tr("Hard attention: sample one glimpse per word instead of using the expected \u03B1")
                                    : tr("Only hard-attention models sample glimpses; the model shown is soft"));
}

bool MainWindow::glimpseSwitchEnabled() const { return sample_glimpses_->isEnabled(); }

void MainWindow::applyOverlayStyle() {
  fovea::OverlayStyle s;
  s.colormap = fovea::parse_colormap(colormap_->currentText().toStdString());
  s.opacity = opacity_->value() / 100.0f;
  s.smooth = smooth_->isChecked();
  primary_->setOverlayStyle(s);
  compare_->setOverlayStyle(s);
}

void MainWindow::showReferences() {
  const auto file = QFileInfo(image_path_).fileName().toStdString();
  const bool from_file = !live_ && !image_path_.isEmpty();  // webcam frames have no references
  const auto& refs = references_.of(file);
  for (ExplorerPanel* panel : {primary_, compare_}) {
    if (!from_file || refs.empty() || !panel->hasCaption()) {
      panel->showReferences({}, 0, 0);
      continue;
    }
    QStringList list;
    for (const auto& r : refs) list << QString::fromStdString(r);
    const auto scores = references_.score(file, panel->caption().text());
    panel->showReferences(list, scores.bleu4, scores.cider);
  }
}

void MainWindow::captionArrived() {
  showReferences();
  const int n = std::max(primary_->hasCaption() ? int(primary_->caption().words.size()) : 0,
                         !compare_->isHidden() && compare_->hasCaption() ? int(compare_->caption().words.size()) : 0);
  QStringList words;
  for (const auto& w : primary_->caption().words) words << QString::fromStdString(w.word);
  if (live_) {
    // Live captions: keep showing the current word's position, don't restart the animation. A
    // paused video stepped or sought stays on the word being studied, playing or paused as it was
    // (following its α from frame to frame is what stepping is for).
    const int keep = word_to_keep(shown_words_, player_->current(), words);
    shown_image_ = image_path_, shown_words_ = words;
    if (player_->count() != n) player_->setCount(n);
    if (live_source_->isPlaying()) player_->play();
    else player_->setCurrent(keep);
    return;
  }
  // Another caption of the same image (beam, greedy, model): stay on the word being studied.
  const bool same_image = shown_image_ == image_path_;
  const int keep = word_to_keep(shown_words_, player_->current(), words);
  shown_image_ = image_path_, shown_words_ = words;
  player_->setCount(n);
  if (same_image) player_->setCurrent(keep);  // playing or paused, as it was
  else player_->play();
}

bool MainWindow::openImage(const QString& path, bool remember) {
  if (fovea::is_video_path(path.toStdString())) return openVideo(path, remember);
  stopLive();
  const LoadedImage loaded = load_image_file(path);
  if (loaded.image.isNull()) {
    showError(loaded.error);
    thumbs_->markCurrent(image_path_);  // the strip shows what the view shows
    return false;
  }
  clearError();
  image_path_ = QFileInfo(path).absoluteFilePath();
  player_->setCount(0);
  primary_->setImage(loaded.image);
  if (!compare_->isHidden()) compare_->setImage(loaded.image);
  size_sync_->sync();
  if (remember) recent_->add(image_path_);
  const QString image_dir = QFileInfo(image_path_).absolutePath();
  if (image_dir != references_dir_) {
    references_dir_ = image_dir;
    try {
      references_ = fovea::ReferenceCaptions::read_folder(image_dir.toStdString());
    } catch (const std::exception& e) {
      references_ = {};
      showError(QString::fromStdString(e.what()));
    }
  }
  // Show the file's folder in the strip so the arrow keys move to its neighbours.
  const QString folder = QFileInfo(image_path_).absolutePath();
  if (thumbs_->folder() != folder) thumbs_->setFolder(folder);
  thumbs_->markCurrent(image_path_);
  setWindowTitle(tr("%1 — Fovea Studio").arg(QFileInfo(path).fileName()));
  QString msg = tr("%1: %2x%3").arg(path).arg(loaded.image.width()).arg(loaded.image.height());
  if (!loaded.note.isEmpty()) msg += QStringLiteral(" (%1)").arg(loaded.note);
  statusBar()->showMessage(msg, 6000);
  return true;
}

int MainWindow::openFolder(const QString& dir) {
  if (!QFileInfo(dir).isDir()) {
    showError(tr("%1: not a folder").arg(dir));
    return 0;
  }
  const int n = thumbs_->setFolder(dir);
  if (n == 0) {
    showError(tr("%1: no image files in this folder").arg(dir));
    return 0;
  }
  thumbs_->setFocus();
  // The first image that opens; the files before it that did not are named after it opened (a
  // folder whose first file is broken once left the view on the previous folder's image).
  QStringList unreadable;
  for (const QString& file : thumbs_->files()) {
    if (fovea::is_video_path(file.toStdString())) continue;
    if (openImage(file, false)) break;
    unreadable << QFileInfo(file).fileName();
  }
  if (unreadable.size() == n) return n;  // each was named as it failed
  if (!unreadable.isEmpty()) showError(tr("Skipped what cannot be read as an image: %1").arg(unreadable.join(QStringLiteral(", "))));
  return n;
}

void MainWindow::loadModel(const QString& path) {
  primary_->loadModel(path);  // the video source gets it once it has loaded (modelLoaded)
}

void MainWindow::loadCompareModel(const QString& path) {
  compare_->loadModel(path);
  setCompareVisible(true);
}

void MainWindow::setCompareVisible(bool visible) {
  if (compare_action_->isChecked() != visible) compare_action_->setChecked(visible);
  if (!compare_->isHidden() == visible) return;
  compare_->setVisible(visible);
  if (visible) {
    if (!compare_->session()->hasOrAwaitsModel()) {
      // Compare with the other shipped model: hard against soft, or soft against hard.
      const QString hard = default_compare_model_path(), soft = default_model_path();
      const bool primary_is_hard = primary_->session()->model() && primary_->session()->model()->attention == "hard";
      const QString other = primary_is_hard ? soft : hard;
      if (!other.isEmpty()) compare_->loadModel(other);
    }
    compare_->setImage(primary_->view()->image());
    compare_->setUserCaption(user_caption_->text());
    splitter_->setSizes({1, 1});
  }
  size_sync_->sync();
  updateGlimpseSwitch();
}

void MainWindow::setUserCaption(const QString& text) {
  if (user_caption_->text() != text) user_caption_->setText(text);
  primary_->setUserCaption(text);
  if (!compare_->isHidden()) compare_->setUserCaption(text);
}

QString MainWindow::errorText() const { return error_bar_->text(); }

void MainWindow::showError(const QString& message) {
  if (message.isEmpty()) return;
  // Errors that arrive together (a bad image, then a model that fails to load) are all shown,
  // newest first, each with its time, until they no longer apply or the bar is closed.
  error_bar_->add(message);
  statusBar()->showMessage(user_summary(message).section(QLatin1Char('\n'), 0, 0), 10000);
}

void MainWindow::withdrawError(const QString& message) { error_bar_->withdraw(message); }

void MainWindow::clearError() { error_bar_->clear(); }

QStringList MainWindow::recentFiles() const { return recent_->files(); }

void MainWindow::chooseImage() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Image"), QFileInfo(image_path_).absolutePath(),
                                                    tr("Images and videos (*.png *.jpg *.jpeg *.bmp *.gif *.webp *.tif *.tiff *.ppm *.pgm *.mp4 *.m4v *.mov *.webm *.mkv *.avi);;"
                                                       "Videos (*.mp4 *.m4v *.mov *.webm *.mkv *.avi *.mpg *.ogv);;All files (*)"));
  if (!path.isEmpty()) openImage(path);
}

void MainWindow::chooseFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Folder"), QFileInfo(image_path_).absolutePath());
  if (!dir.isEmpty()) openFolder(dir);
}

void MainWindow::chooseModel(bool compare) {
  const QString path = QFileDialog::getOpenFileName(this, compare ? tr("Load Model to Compare") : tr("Load Model"),
                                                    QFileInfo(default_model_path()).absolutePath(),
                                                    tr("Fovea models (*.ckpt);;All files (*)"));
  if (path.isEmpty()) return;
  compare ? loadCompareModel(path) : loadModel(path);
}

TrainingWindow* MainWindow::trainingWindow() {
  if (!training_window_) {
    training_window_ = new TrainingWindow(this);
    training_window_->setWindowFlag(Qt::Window);
    connect(training_window_, &TrainingWindow::openModelRequested, this, [this](const QString& path) {
      loadModel(path);
      raise();
      activateWindow();
    });
  }
  return training_window_;
}

void MainWindow::showTrainingWindow() {
  trainingWindow()->show();
  training_window_->raise();
  training_window_->activateWindow();
}

void MainWindow::closeHiddenAndQuit() {
  if (close() && QApplication::quitOnLastWindowClosed()) QCoreApplication::quit();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // A video export in progress is not thrown away without a word.
  if (isExportingVideo() && isVisible() &&
      QMessageBox::question(this, tr("Quit Fovea Studio"),
                            tr("A video is still being exported; quitting now leaves it unwritten. Quit anyway?")) !=
          QMessageBox::Yes) {
    event->ignore();
    return;
  }
  // A run training in the other window is stopped at a checkpoint first (it asks). Nothing waits
  // for it: both windows hide now, and this one closes when the run has ended.
  if (training_window_ && !training_window_->close()) {
    event->ignore();
    if (!training_window_->isStoppingToClose()) return;  // the user chose to keep training
    stopLive();
    hide();
    // Qt quits when the last *visible* window closes; this one is hidden by now, so it quits itself.
    connect(training_window_, &TrainingWindow::closedAfterStop, this, &MainWindow::closeHiddenAndQuit, Qt::UniqueConnection);
    return;
  }
  stopLive();
  rememberView();
  event->accept();
}

}  // namespace fovea::ui
