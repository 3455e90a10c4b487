// MainWindow's menus and main toolbar: the actions, their shortcuts and where they go.
#include "ui/explorer/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/render/figure.h"
#include "core/render/web_page.h"
#include "core/io/model_name.h"
#include "ui/common/user_message.h"
#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/live_source.h"
#include "ui/common/image_convert.h"
#include "ui/explorer/resource_paths.h"
#include "ui/explorer/thumbnail_strip.h"
#include "ui/common/word_player.h"
#include "ui/training/training_window.h"

namespace fovea::ui {

void MainWindow::buildActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open Image…"), this, &MainWindow::chooseImage);
  open->setShortcut(QKeySequence::Open);
  QAction* folder = file->addAction(style()->standardIcon(QStyle::SP_DirOpenIcon), tr("Open &Folder…"), this, &MainWindow::chooseFolder);
  folder->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+O")));
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  recent_menu_->setObjectName("recent-menu");
  file->addSeparator();
  QAction* model = file->addAction(tr("Load &Model…"), this, [this] { chooseModel(false); });
  model->setShortcut(QKeySequence(QStringLiteral("Ctrl+M")));
  file->addAction(tr("Load Model to &Compare…"), this, [this] { chooseModel(true); });
  // The shipped models by what they are: supervised soft and hard, and the paper's objective alone.
  QMenu* shipped = file->addMenu(tr("S&hipped Models"));
  shipped->setObjectName("shipped-models-menu");
  QMenu* compare_with = file->addMenu(tr("Compare &With"));
  compare_with->setObjectName("compare-with-menu");
  for (const auto& m : shipped_models()) {
    shipped->addAction(m.name, this, [this, path = m.path] { loadModel(path); })->setToolTip(m.path);
    compare_with->addAction(m.name, this, [this, path = m.path] { loadCompareModel(path); })->setToolTip(m.path);
  }
  shipped->setEnabled(!shipped->isEmpty());
  compare_with->setEnabled(!compare_with->isEmpty());
  file->addSeparator();
  QAction* fig = file->addAction(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("&Export Figure (PNG, SVG, PDF)…"), this,
                                 &MainWindow::chooseExport);
  fig->setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
  file->addAction(tr("Export &Web Page…"), this, &MainWindow::chooseWebPageExport);
  file->addAction(tr("Export &Gallery of a Folder…"), this, &MainWindow::chooseGalleryExport);
  file->addAction(tr("Export &Animation Frames…"), this, &MainWindow::chooseFramesExport);
  file->addAction(tr("Export Current &View as PNG…"), this, &MainWindow::chooseViewExport);
  file->addAction(tr("Export &Video with Captions…"), this, &MainWindow::chooseVideoExport);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  compare_action_ = view->addAction(tr("&Compare Two Models Side by Side"));
  compare_action_->setCheckable(true);
  compare_action_->setShortcut(QKeySequence(QStringLiteral("Ctrl+2")));
  connect(compare_action_, &QAction::toggled, this, &MainWindow::setCompareVisible);

  playback_menu_ = menuBar()->addMenu(tr("&Playback"));  // filled with the player's actions in buildControls()

  camera_menu_ = menuBar()->addMenu(tr("&Camera"));  // the cameras present, listed as it opens
  connect(camera_menu_, &QMenu::aboutToShow, this, &MainWindow::fillCameraMenu);

  QMenu* training = menuBar()->addMenu(tr("&Training"));
  training->addAction(tr("&New Training Run…"), this, [this] {
    showTrainingWindow();
    training_window_->newRun();
  });
  training->addAction(tr("Training &Dashboards"), this, &MainWindow::showTrainingWindow, QKeySequence(tr("Ctrl+T")));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Quick Start"), this, [this] {
    QMessageBox::information(this, tr("Quick Start"), quickStartText());
  });
  help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
    QMessageBox box(QMessageBox::NoIcon, tr("Keyboard Shortcuts"), shortcutsText(), QMessageBox::Close, this);
    box.exec();
  }, QKeySequence::HelpContents);
  help->addSeparator();
  help->addAction(tr("&About Fovea Studio"), this, [this] {
    QMessageBox::about(this, tr("About Fovea Studio"),
                       tr("<b>Fovea Studio</b> 0.1<br>Image captioning with visual attention "
                          "(Show, Attend and Tell): soft and hard attention, word by word.<br><br>"
                          "Click or hover a word to see where the model looked; type your own caption "
                          "to see how probable the model finds each word."));
  });

  QToolBar* tb = addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("mainToolbar"));
  tb->addAction(open);
  tb->addAction(folder);
  tb->addAction(fig);
  tb->addSeparator();
  tb->addAction(compare_action_);
}

QString MainWindow::quickStartText() const {
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

QString MainWindow::shortcutsText() const {
  // From the actions themselves, so the list is what the keys do.
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
  for (const QAction* menu : menuBar()->actions()) {
    if (!menu->menu()) continue;
    for (const QAction* a : menu->menu()->actions()) add(a);
  }
  for (const QAction* a : actions()) add(a);
  return QStringLiteral("<table>%1</table><br>%2").arg(rows, tr("In the thumbnail strip the arrow keys move between images."));
}

void MainWindow::chooseWebPageExport() {
  const QString base = QFileInfo(image_path_).completeBaseName();
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Web Page"), base + QStringLiteral("-attention.html"),
                                                    tr("Web page (*.html)"));
  if (!path.isEmpty()) exportWebPage(path);
}

bool MainWindow::exportWebPage(const QString& path) {
  if (!primary_->hasCaption() || primary_->caption().words.empty()) {
    showError(tr("Nothing to export yet: open an image and wait for its caption"));
    return false;
  }
  try {
    fovea::WebPageOptions page;
    page.model = fovea::model_display_name(primary_->modelPath().toStdString());
    if (live_) page.source = live_source_->describeLatest().toStdString();  // a video's frame: which one
    if (!live_ && !image_path_.isEmpty()) page.references = references_.of(QFileInfo(image_path_).fileName().toStdString());
    page.style = primary_->view()->overlayStyle().colormap == fovea::Colormap::Spotlight ? "spotlight" : "heatmap";
    fovea::write_web_page(path.toStdString(), to_rgb(primary_->view()->image()), primary_->caption(), page);
  } catch (const std::exception& e) {
    showError(tr("Export failed: %1").arg(user_text(e)));
    return false;
  }
  statusBar()->showMessage(tr("Wrote %1").arg(path), 6000);
  return true;
}

}  // namespace fovea::ui
