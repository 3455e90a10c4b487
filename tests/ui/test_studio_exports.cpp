// fovea-studio with a video open and its long exports, offscreen: the thumbnail strip says the
// video plays and marks no still; a web page exported from a video names the video and the frame;
// exporting a video and a folder's gallery (File ▸ Export Gallery, the page `fovea export FOLDER`
// writes) show a progress dialog whose Cancel stops them, writing nothing.
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

#include "tests/ui/moving_clip.h"
#include "tests/ui/shown_widgets.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/live_controls.h"
#include "ui/explorer/live_source.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/studio_exports.h"
#include "ui/explorer/thumbnail_strip.h"
#include "ui/export/gallery_export.h"
#include "ui/export/job_progress.h"

#include "tests/ui/studio_test_basics.h"

using namespace fovea::ui;
using namespace fovea::test_ui;

namespace {

void pressCancel(JobProgress* p) {
  for (auto* b : p->findChildren<QPushButton*>())
    if (b->text().contains(QStringLiteral("Cancel"))) return b->click();
  QFAIL("the progress dialog has no Cancel button");
}

QAction* menuAction(QMainWindow* w, const QString& text) {
  for (QAction* menu : w->menuBar()->actions())
    if (menu->menu())
      for (QAction* a : menu->menu()->actions())
        if (a->text().remove('&').startsWith(text)) return a;
  return nullptr;
}
}  // namespace

class StudioExportsTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString clip_;
  MainWindow* w_ = nullptr;

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    if (!clipItemsInstalled()) QSKIP("dataset-fashion-mnist is not installed");
    clip_ = writeMovingClip(dir_, 6);
    w_ = new MainWindow;
    w_->loadModel(kSoft);
    w_->show();
    QVERIFY(w_->openImage(kSamples + "/test_00001.png"));
    QTRY_VERIFY_WITH_TIMEOUT(w_->primaryPanel()->hasCaption(), kWait);
    QVERIFY(w_->thumbnails()->currentRow() >= 0);
  }

  void cleanupTestCase() { delete w_; }

  void theStripSaysTheVideoPlaysAndMarksNoStill() {
    QVERIFY(w_->live()->openVideo(clip_));
    QTRY_VERIFY_WITH_TIMEOUT(w_->primaryPanel()->hasCaption() && w_->liveSource()->latest().index > 0, kWait);
    ThumbnailStrip* strip = w_->thumbnails();
    QVERIFY(strip->count() > 0);  // the folder's images stay, to go back to
    QCOMPARE(strip->currentRow(), -1);
    QVERIFY(strip->selectedItems().isEmpty());
    QCOMPARE(strip->playing(), QStringLiteral("clip.avi"));
  }

  void aWebPageOfAVideoNamesTheVideoAndTheFrame() {
    w_->liveSource()->pause();
    QTest::qWait(300);
    const QString page = dir_.filePath("frame.html");
    QVERIFY(w_->exports()->exportWebPage(page));
    QFile f(page);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString html = QString::fromUtf8(f.readAll());
    const auto latest = w_->liveSource()->latest();
    const QString frame = QStringLiteral("frame %1 of ").arg(latest.index + 1);
    QVERIFY2(html.contains(frame) && html.contains(QStringLiteral("of clip.avi")),
             qPrintable(QStringLiteral("the page does not say \"%1…of clip.avi\"").arg(frame)));
    QVERIFY(html.contains(QStringLiteral("%1 s").arg(latest.time, 0, 'f', 2)));
  }

  void exportingTheVideoShowsProgressAndCancelStopsIt() {
    const QString out = dir_.filePath("captioned.avi");
    w_->exports()->exportVideo(out);
    QVERIFY(w_->exports()->isExportingVideo());
    JobProgress* progress = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((progress = shownTopLevel<JobProgress>()) != nullptr, 5000);
    QCOMPARE(progress->maximum(), int(w_->liveSource()->frameCount()));
    QTRY_VERIFY_WITH_TIMEOUT(progress->value() > 0, kWait);  // it moves
    pressCancel(progress);
    QTRY_VERIFY_WITH_TIMEOUT(!w_->exports()->isExportingVideo(), kWait);
    QTRY_VERIFY(shownTopLevel<JobProgress>() == nullptr);
    QVERIFY2(!QFile::exists(out), "a canceled export left its file");
  }

  void theFileMenuExportsAFoldersGallery() {
    QVERIFY2(menuAction(w_, QStringLiteral("Export Gallery")), "File has no Export Gallery");
    QTemporaryDir folder;
    for (const char* name : {"test_00000.png", "test_00001.png", "test_00002.png"})
      QVERIFY(QFile::copy(kSamples + "/" + name, folder.filePath(name)));
    GalleryRequest request{folder.path(), dir_.filePath("gallery.html"), {kSoft}, {}, QStringLiteral("spotlight")};
    request.caption.beam = 1;
    auto* job = GalleryExport::start(w_, request);
    QSignalSpy done(job, &GalleryExport::finished);
    QVERIFY(shownTopLevel<JobProgress>() != nullptr);
    QCOMPARE(shownTopLevel<JobProgress>()->maximum(), 3);
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kWait);
    QVERIFY2(!done[0][1].toBool(), qPrintable(done[0][0].toString()));
    QFile page(request.out);
    QVERIFY(page.open(QIODevice::ReadOnly));
    QCOMPARE(page.readAll().count("\"name\":\"test_0000"), 3);

    request.out = dir_.filePath("canceled.html");
    job = GalleryExport::start(w_, request);
    QSignalSpy stopped(job, &GalleryExport::finished);
    pressCancel(job->progress());
    QTRY_COMPARE_WITH_TIMEOUT(stopped.count(), 1, kWait);
    QVERIFY2(stopped[0][0].toString().contains(QStringLiteral("canceled")), qPrintable(stopped[0][0].toString()));
    QVERIFY(!QFile::exists(request.out));
  }
};

QTEST_MAIN(StudioExportsTest)
#include "test_studio_exports.moc"
