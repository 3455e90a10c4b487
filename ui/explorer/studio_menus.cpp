// fovea-studio's menus and main toolbar.
#include "ui/explorer/studio_menus.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <QToolBar>

#include "ui/explorer/main_window.h"
#include "ui/explorer/resource_paths.h"
#include "ui/explorer/studio_exports.h"
#include "ui/training/training_window.h"

namespace fovea::ui {

StudioMenus::StudioMenus(MainWindow* window) : QObject(window), window_(window) {
  buildFileMenu();
  QMenu* view = window->menuBar()->addMenu(tr("&View"));
  compare_ = view->addAction(tr("&Compare Two Models Side by Side"));
  compare_->setCheckable(true);
  compare_->setShortcut(QKeySequence(QStringLiteral("Ctrl+2")));
  connect(compare_, &QAction::toggled, window, &MainWindow::setCompareVisible);

  playback_ = window->menuBar()->addMenu(tr("&Playback"));  // the player's actions (playback_controls.h)
  camera_ = window->menuBar()->addMenu(tr("&Camera"));  // the cameras present, listed as it opens (live_controls.h)

  QMenu* training = window->menuBar()->addMenu(tr("&Training"));
  training->addAction(tr("&New Training Run…"), this, [window] {
    window->showTrainingWindow();
    window->trainingWindow()->newRun();
  });
  training->addAction(tr("Training &Dashboards"), window, &MainWindow::showTrainingWindow, QKeySequence(tr("Ctrl+T")));
  buildHelpMenu();

  QToolBar* tb = window->addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("mainToolbar"));
  tb->addAction(open_);
  tb->addAction(open_folder_);
  tb->addAction(export_figure_);
  tb->addSeparator();
  tb->addAction(compare_);
}

void StudioMenus::buildFileMenu() {
  QMenu* file = window_->menuBar()->addMenu(tr("&File"));
  const QStyle* style = window_->style();
  open_ = file->addAction(style->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open Image…"), this, &StudioMenus::chooseImage);
  open_->setShortcut(QKeySequence::Open);
  open_folder_ = file->addAction(style->standardIcon(QStyle::SP_DirOpenIcon), tr("Open &Folder…"), this, &StudioMenus::chooseFolder);
  open_folder_->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+O")));
  recent_ = file->addMenu(tr("Open &Recent"));
  recent_->setObjectName("recent-menu");
  file->addSeparator();
  addModelMenus(file);
  file->addSeparator();
  addExports(file);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), window_, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
}

void StudioMenus::addModelMenus(QMenu* file) {
  QAction* model = file->addAction(tr("Load &Model…"), this, [this] { chooseModel(false); });
  model->setShortcut(QKeySequence(QStringLiteral("Ctrl+M")));
  file->addAction(tr("Load Model to &Compare…"), this, [this] { chooseModel(true); });
  // The shipped models by what they are: supervised soft and hard, and the paper's objective alone.
  QMenu* shipped = file->addMenu(tr("S&hipped Models"));
  shipped->setObjectName("shipped-models-menu");
  QMenu* compare_with = file->addMenu(tr("Compare &With"));
  compare_with->setObjectName("compare-with-menu");
  for (const auto& m : shipped_models()) {
    shipped->addAction(m.name, window_, [w = window_, path = m.path] { w->loadModel(path); })->setToolTip(m.path);
    compare_with->addAction(m.name, window_, [w = window_, path = m.path] { w->loadCompareModel(path); })->setToolTip(m.path);
  }
  shipped->setEnabled(!shipped->isEmpty());
  compare_with->setEnabled(!compare_with->isEmpty());
}

void StudioMenus::addExports(QMenu* file) {
  // The exports part is asked when an action is chosen (it is built after the menus).
  MainWindow* w = window_;
  export_figure_ = file->addAction(w->style()->standardIcon(QStyle::SP_DialogSaveButton), tr("&Export Figure (PNG, SVG, PDF)…"),
                                   this, [w] { w->exports()->chooseFigure(); });
  export_figure_->setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
  file->addAction(tr("Export &Web Page…"), this, [w] { w->exports()->chooseWebPage(); });
  file->addAction(tr("Export &Gallery of a Folder…"), this, [w] { w->exports()->chooseGallery(); });
  file->addAction(tr("Export &Animation Frames…"), this, [w] { w->exports()->chooseFrames(); });
  file->addAction(tr("Export Current &View as PNG…"), this, [w] { w->exports()->chooseView(); });
  file->addAction(tr("Export &Video with Captions…"), this, [w] { w->exports()->chooseVideo(); });
}

void StudioMenus::buildHelpMenu() {
  QMenu* help = window_->menuBar()->addMenu(tr("&Help"));
  MainWindow* w = window_;
  help->addAction(tr("&Quick Start"), this, [w] { QMessageBox::information(w, tr("Quick Start"), quickStartText()); });
  help->addAction(tr("&Keyboard Shortcuts"), this, [w] {
    QMessageBox box(QMessageBox::NoIcon, tr("Keyboard Shortcuts"), shortcutsText(*w), QMessageBox::Close, w);
    box.exec();
  }, QKeySequence::HelpContents);
  help->addSeparator();
  help->addAction(tr("&About Fovea Studio"), this, [w] {
    QMessageBox::about(w, tr("About Fovea Studio"),
                       tr("<b>Fovea Studio</b> 0.1<br>Image captioning with visual attention "
                          "(Show, Attend and Tell): soft and hard attention, word by word.<br><br>"
                          "Click or hover a word to see where the model looked; type your own caption "
                          "to see how probable the model finds each word."));
  });
}

QString StudioMenus::quickStartText() {
  return tr("<b>1. Open an image</b> (Ctrl+O), a folder (Ctrl+Shift+O), drop a file, or click a sample "
            "scene in the strip at the bottom. The model captions it.<br>"
            "<b>2. Read where it looks</b>: the caption plays word by word (Space pauses); the image is "
            "bright where the model attends for the shown word. Click or hover a word to hold it; "
            "<tt>,</tt> and <tt>.</tt> step.<br>"
            "<b>3. Test it</b>: type your own caption under the words and press Enter: each word gets its "
            "probability and attention. Drag a rectangle on the image (or click) to ask what the model would say "
            "at the current word looking there. Ctrl+2 compares the soft and the hard model side by side.<br>"
            "<b>4. Keep it</b>: File ▸ Export Figure writes the image and one panel per word (PNG, SVG, PDF).<br>"
            "<b>5. Train your own</b>: Training ▸ New Training Run; the dashboards show the loss, the "
            "REINFORCE baseline, the entropy of α and validation scores live.");
}

QString StudioMenus::shortcutsText(const QMainWindow& window) {
  QString rows;
  QStringList seen;
  const auto add = [&](const QAction* a) {
    if (a->shortcuts().isEmpty() || a->text().isEmpty()) return;
    QStringList keys;
    for (const auto& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText).toHtmlEscaped();
    const QString name = QString(a->text()).remove(QLatin1Char('&')).remove(QStringLiteral("…"));
    if (seen.contains(name)) return;
    seen << name;
    rows += QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>").arg(keys.join(tr(" or ")), name.toHtmlEscaped());
  };
  for (const QAction* menu : window.menuBar()->actions()) {
    if (!menu->menu()) continue;
    for (const QAction* a : menu->menu()->actions()) add(a);
  }
  for (const QAction* a : window.actions()) add(a);
  return QStringLiteral("<table>%1</table><br>%2").arg(rows, tr("In the thumbnail strip the arrow keys move between images."));
}

void StudioMenus::chooseImage() {
  const QString path = QFileDialog::getOpenFileName(window_, tr("Open Image"), QFileInfo(window_->imagePath()).absolutePath(),
                                                    tr("Images and videos (*.png *.jpg *.jpeg *.bmp *.gif *.webp *.tif *.tiff *.ppm *.pgm *.mp4 *.m4v *.mov *.webm *.mkv *.avi);;"
                                                       "Videos (*.mp4 *.m4v *.mov *.webm *.mkv *.avi *.mpg *.ogv);;All files (*)"));
  if (!path.isEmpty()) window_->openImage(path);
}

void StudioMenus::chooseFolder() {
  const QString dir = QFileDialog::getExistingDirectory(window_, tr("Open Folder"), QFileInfo(window_->imagePath()).absolutePath());
  if (!dir.isEmpty()) window_->openFolder(dir);
}

void StudioMenus::chooseModel(bool compare) {
  const QString path = QFileDialog::getOpenFileName(window_, compare ? tr("Load Model to Compare") : tr("Load Model"),
                                                    QFileInfo(default_model_path()).absolutePath(),
                                                    tr("Fovea models (*.ckpt);;All files (*)"));
  if (path.isEmpty()) return;
  compare ? window_->loadCompareModel(path) : window_->loadModel(path);
}

}  // namespace fovea::ui
