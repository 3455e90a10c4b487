#include "ui/explorer/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

#include "core/data/video_io.h"
#include "ui/common/attention_view.h"
#include "ui/common/image_convert.h"
#include "ui/common/user_message.h"
#include "ui/common/window_fit.h"
#include "ui/common/word_player.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/compact_layout.h"
#include "ui/explorer/decoding_controls.h"
#include "ui/explorer/error_bar.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/image_size_sync.h"
#include "ui/explorer/live_controls.h"
#include "ui/explorer/live_source.h"
#include "ui/explorer/panel_notes.h"
#include "ui/explorer/playback_controls.h"
#include "ui/explorer/recent_files.h"
#include "ui/explorer/remembered_model.h"
#include "ui/explorer/resource_paths.h"
#include "ui/explorer/session_memory.h"
#include "ui/explorer/studio_exports.h"
#include "ui/explorer/studio_menus.h"
#include "ui/explorer/thumbnail_strip.h"
#include "ui/training/training_window.h"

namespace fovea::ui {

namespace {

const QString kGeometry = QStringLiteral("view/geometry");

/// Whether a hard-attention model is shown (the main panel's, or the compared one's when shown):
/// only those sample glimpses.
bool shows_hard_attention(const ExplorerPanel* primary, const ExplorerPanel* compare) {
  bool hard = false;
  for (const ExplorerPanel* panel : {primary, compare}) {
    const auto* model = panel->session()->model();
    if (model && (panel == primary || !panel->isHidden())) hard |= model->attention == QLatin1String("hard");
  }
  return hard;
}

/// Each panel's caption against the shown image's references (none: the line hides).
void show_references(const ShownImage& shown, std::initializer_list<ExplorerPanel*> panels) {
  const auto file = QFileInfo(shown.path).fileName().toStdString();
  const auto refs = shown.shownReferences();  // webcam frames have none
  for (ExplorerPanel* panel : panels) {
    if (refs.empty() || !panel->hasCaption()) {
      panel->notes()->showReferences({}, 0, 0);
      continue;
    }
    QStringList list;
    for (const auto& r : refs) list << QString::fromStdString(r);
    const auto scores = shown.references.score(file, panel->caption().text());
    panel->notes()->showReferences(list, scores.bleu4, scores.cider);
  }
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), primary_(new ExplorerPanel), compare_(new ExplorerPanel), splitter_(new QSplitter),
      player_(new WordPlayer(this)), thumbs_(new ThumbnailStrip) {
  setWindowTitle(tr("Fovea Studio"));
  setAcceptDrops(false);  // the attention views take drops
  menus_ = new StudioMenus(this);
  recent_ = new RecentFiles(menus_->recentMenu(), [this](const QString& path) { openImage(path); }, this);
  buildContent();
  live_ = new LiveControls({this, &shown_, player_, primary_, compare_, recent_, menus_->cameraMenu()});
  exports_ = new StudioExports(this, &shown_, {primary_, compare_}, decoding_, live_->source());
  compare_->title()->setModelRole(tr("the model to compare with"));
  connectPanel(primary_);
  connectPanel(compare_);
  connectParts();
  new CompactLayout(this);  // on a short screen the image keeps its room
  size_sync_ = new ImageSizeSync(primary_->view(), compare_->view(), this);
  fit_to_screen(this, {1180, 860});
  statusBar()->showMessage(tr("Open an image (Ctrl+O), a folder (Ctrl+Shift+O), drop a file, or pick a sample below"));
}

MainWindow::~MainWindow() { live_->stop(); }  // (the exports stop a video export as they go)

void MainWindow::buildContent() {
  splitter_->addWidget(primary_);
  splitter_->addWidget(compare_);
  compare_->hide();

  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 6);
  layout->addWidget(splitter_, 1);
  buildControls(layout);
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
}

void MainWindow::buildControls(QVBoxLayout* content) {
  auto* bar = new QToolBar(tr("Playback and overlay"));
  bar->setObjectName(QStringLiteral("controlsToolbar"));
  addToolBar(Qt::BottomToolBarArea, bar);
  playback_ = new PlaybackControls(player_, bar, menus_->playbackMenu(), this);
  bar->addSeparator();
  decoding_ = new DecodingControls(bar);

  // The typed caption has a row of its own under the captions, at every window size.
  user_caption_ = new QLineEdit;
  user_caption_->setObjectName(QStringLiteral("user-caption"));
  user_caption_->setPlaceholderText(tr("Type your own caption and press Enter to see where the model looks…"));
  user_caption_->setClearButtonEnabled(true);
  connect(user_caption_, &QLineEdit::returnPressed, this, [this] { setUserCaption(user_caption_->text()); });
  auto* own = new QPushButton(tr("Model's caption"));
  own->setToolTip(tr("Back to the caption the model generates"));
  connect(own, &QPushButton::clicked, this, [this] {
    user_caption_->clear();
    setUserCaption(QString());
  });
  auto* row_widget = new QWidget;
  auto* row = new QHBoxLayout(row_widget);
  row->setContentsMargins(0, 2, 0, 2);
  row->addWidget(new QLabel(tr("Your caption:")));
  row->addWidget(user_caption_, 1);
  row->addWidget(own);
  content->addWidget(row_widget);
}

void MainWindow::connectPanel(ExplorerPanel* panel) {
  connect(panel, &ExplorerPanel::errorOccurred, this, &MainWindow::showError);
  connect(panel, &ExplorerPanel::captionShown, this, &MainWindow::captionArrived);
  connect(panel->strip(), &CaptionStrip::wordClicked, this, [this](int i) {
    player_->pause();
    player_->setCurrent(i);
  });
  connect(panel, &ExplorerPanel::wordHeld, live_, &LiveControls::hold);
  // Hover previews the word in both panels while the pointer is on its chip; only a click selects.
  connect(panel->strip(), &CaptionStrip::wordHovered, this, [this](int i) {
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
    error_bar_->withdraw(*load_error);
    load_error->clear();
    statusBar()->showMessage(tr("Loaded %1 (%2)").arg(m.path, m.summary), 8000);
    decoding_->setHardAttentionShown(shows_hard_attention(primary_, compare_));
    if (panel != primary_) return;
    remember_model(m.path);
    LiveSource* source = live_->source();
    source->setModel(m.path);  // the next video or camera opened is captioned with it
    if (source->isOpen()) source->open(source->path());  // and the one open, from its start
  });
}

void MainWindow::connectParts() {
  connect(player_, &WordPlayer::currentChanged, this, [this](int i) {
    primary_->setWordIndex(i);
    compare_->setWordIndex(i);
  });
  connect(thumbs_, &ThumbnailStrip::imageChosen, this, [this](const QString& path) { openImage(path, false); });
  connect(playback_, &PlaybackControls::dismissRequested, this, [this] {
    primary_->dismissNotes();
    compare_->dismissNotes();
  });
  const auto apply_options = [this](const fovea::CaptionOptions& options) {
    decoding_->setHardAttentionShown(shows_hard_attention(primary_, compare_));
    primary_->setCaptionOptions(options);
    compare_->setCaptionOptions(options);
    live_->source()->setCaptionOptions(options);
  };
  const auto apply_style = [this](const fovea::OverlayStyle& style) {
    primary_->view()->setOverlayStyle(style);
    compare_->view()->setOverlayStyle(style);
  };
  connect(decoding_, &DecodingControls::captionOptionsChanged, this, apply_options);
  connect(decoding_, &DecodingControls::overlayStyleChanged, this, apply_style);
  apply_style(decoding_->overlayStyle());
  apply_options(decoding_->captionOptions());
  connect(live_, &LiveControls::started, error_bar_, &ErrorBar::clear);
  connect(live_, &LiveControls::started, thumbs_, &ThumbnailStrip::setPlaying);  // the strip says what plays
  connect(live_, &LiveControls::ended, this, [this](const QString& back) {
    if (!back.isEmpty() && openImage(back, false)) return;
    shown_.path = back;
    setWindowTitle(back.isEmpty() ? tr("Fovea Studio") : tr("%1 — Fovea Studio").arg(QFileInfo(back).fileName()));
    thumbs_->markCurrent(back);
    show_references(shown_, {primary_, compare_});
  });
  connect(live_, &LiveControls::errorOccurred, this, &MainWindow::showError);
  connect(exports_, &StudioExports::errorOccurred, this, &MainWindow::showError);
}

LiveSource* MainWindow::liveSource() const { return live_->source(); }

void MainWindow::captionArrived() {
  show_references(shown_, {primary_, compare_});
  const int n = std::max(primary_->hasCaption() ? int(primary_->caption().words.size()) : 0,
                         !compare_->isHidden() && compare_->hasCaption() ? int(compare_->caption().words.size()) : 0);
  QStringList words;
  for (const auto& w : primary_->caption().words) words << QString::fromStdString(w.word);
  // Another caption of the same image (beam, greedy, model), or live captions: stay on the word
  // being studied. Live, a paused video stepped or sought stays on it, playing or paused as it
  // was (following its α from frame to frame is what stepping is for).
  const bool same_image = shown_image_ == shown_.path;
  const int keep = word_to_keep(shown_words_, player_->current(), words);
  shown_image_ = shown_.path, shown_words_ = words;
  if (shown_.live) {
    if (player_->count() != n) player_->setCount(n);
    if (live_->source()->isPlaying()) player_->play();
    else player_->setCurrent(keep);
    return;
  }
  player_->setCount(n);
  if (same_image) player_->setCurrent(keep);  // playing or paused, as it was
  else player_->play();
}

bool MainWindow::openImage(const QString& path, bool remember) {
  if (fovea::is_video_path(path.toStdString())) return live_->openVideo(path, remember);
  live_->stop();
  const LoadedImage loaded = load_image_file(path);
  if (loaded.image.isNull()) {
    showError(loaded.error);
    thumbs_->markCurrent(shown_.path);  // the strip shows what the view shows
    return false;
  }
  error_bar_->clear();
  shown_.path = QFileInfo(path).absoluteFilePath();
  player_->setCount(0);
  primary_->setImage(loaded.image);
  if (!compare_->isHidden()) compare_->setImage(loaded.image);
  size_sync_->sync();
  if (remember) recent_->add(shown_.path);
  const QString folder = QFileInfo(shown_.path).absolutePath();
  if (folder != shown_.references_dir) {
    shown_.references_dir = folder;
    try {
      shown_.references = fovea::ReferenceCaptions::read_folder(folder.toStdString());
    } catch (const std::exception& e) {
      shown_.references = {};
      showError(QString::fromStdString(e.what()));
    }
  }
  // Show the file's folder in the strip so the arrow keys move to its neighbours.
  if (thumbs_->folder() != folder) thumbs_->setFolder(folder);
  thumbs_->markCurrent(shown_.path);
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
  if (menus_->compareAction()->isChecked() != visible) menus_->compareAction()->setChecked(visible);
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
  decoding_->setHardAttentionShown(shows_hard_attention(primary_, compare_));
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

QStringList MainWindow::recentFiles() const { return recent_->files(); }

TrainingWindow* MainWindow::trainingWindow() {
  if (!training_window_) {
    training_window_ = new TrainingWindow(this);
    training_window_->setWindowFlag(Qt::Window);
    connect(training_window_, &TrainingWindow::openModelRequested, this, [this](const QString& path) {
      loadModel(path);
      raise();
      activateWindow();
    });
    // Closed while a run trained (closeEvent): this window closes, and quits, once the run stopped.
    connect(training_window_, &TrainingWindow::closedAfterStop, this, [this] {
      if (quit_after_stop_ && close() && QApplication::quitOnLastWindowClosed()) QCoreApplication::quit();
    });
  }
  return training_window_;
}

void MainWindow::showTrainingWindow() {
  trainingWindow()->show();
  training_window_->raise();
  training_window_->activateWindow();
}

void MainWindow::restoreView() {
  decoding_->restore();
  playback_->restore();
  fit_to_screen(this, size(), kGeometry);  // a saved size from a larger screen is made to fit this one
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // A video export in progress is not thrown away without a word.
  if (exports_->isExportingVideo() && isVisible() &&
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
    live_->stop();
    hide();
    // Qt quits when the last *visible* window closes; this one is hidden by now, so it quits itself.
    quit_after_stop_ = true;
    return;
  }
  live_->stop();
  decoding_->remember();
  playback_->remember();
  remember_geometry(this, kGeometry);
  remember_session(*this);  // the image or folder shown, and compare mode
  event->accept();
}

}  // namespace fovea::ui
