// fovea-studio on a short screen, offscreen at 960x540 (1920x1080 at 200%): with a caption shown,
// nothing scrolls, the caption field and the thumbnail strip are in view, and the image keeps a
// usable size; back on a tall window the usual layout returns.
#include <QApplication>
#include <QLineEdit>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QToolBar>
#include <QtTest>

#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/thumbnail_strip.h"

using namespace fovea::ui;

namespace {
QString describe(const QRect& r) { return QStringLiteral("%1x%2 at %3,%4").arg(r.width()).arg(r.height()).arg(r.x()).arg(r.y()); }

/// Where `w` lies in the content's scroll area's viewport, and whether all of it shows there.
bool inView(const QScrollArea* scroll, const QWidget* w, QString* where) {
  const QRect r(w->mapTo(scroll->viewport(), QPoint(0, 0)), w->size());
  *where = describe(r) + " in " + describe(scroll->viewport()->rect());
  return w->isVisible() && scroll->viewport()->rect().contains(r);
}
}  // namespace

class SmallScreenTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    const QSize s = QGuiApplication::primaryScreen()->availableGeometry().size();
    QVERIFY2(s.height() <= 540, "run through ctest: it gives the offscreen screen 960x540");
  }

  void theImageCaptionFieldAndStripFitAShortScreen() {
    MainWindow w;
    w.loadModel(QStringLiteral(FOVEA_SOURCE_DIR) + "/models/fashion-soft.ckpt");
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFolder(QStringLiteral(FOVEA_SOURCE_DIR) + "/resources/samples") > 0);
    QTRY_VERIFY_WITH_TIMEOUT(w.primaryPanel()->hasCaption() && w.primaryPanel()->strip()->count() > 0, 60000);
    QTest::qWait(100);
    auto* scroll = w.findChild<QScrollArea*>();
    QVERIFY(scroll);
    QVERIFY2(!scroll->verticalScrollBar()->isVisible(), "the window's content scrolls");
    QString where;
    QVERIFY2(inView(scroll, w.findChild<QLineEdit*>(QStringLiteral("user-caption")), &where), qPrintable("caption field: " + where));
    QVERIFY2(inView(scroll, w.thumbnails(), &where), qPrintable("thumbnail strip: " + where));
    const QRect image = w.primaryPanel()->view()->imageRect();
    QVERIFY2(image.height() >= 230, qPrintable("the image is drawn " + describe(image) + " on a " +
                                                QString::number(w.height()) + " px high window"));
    // Every word can still be seen: its chip lies in the caption's space or that space scrolls to it.
    QVERIFY(w.primaryPanel()->strip()->isVisible());

    // A tall window has the usual layout back: the words under the image, named thumbnails, the toolbar.
    w.resize(1200, 900);
    QTest::qWait(50);
    QVERIFY(!wordsBesideImage(w));
    QVERIFY(!w.thumbnails()->isCompact());
    QVERIFY(w.findChild<QToolBar*>(QStringLiteral("mainToolbar"))->isVisible());
    w.resize(944, 492);
    QTest::qWait(50);
    QVERIFY(wordsBesideImage(w));
  }

 private:
  /// Whether the main panel shows its words beside the image (the compact layout) rather than under it.
  static bool wordsBesideImage(fovea::ui::MainWindow& w) {
    auto* panel = w.primaryPanel();
    const QRect view(panel->view()->mapTo(panel, QPoint()), panel->view()->size());
    const QPoint words = panel->strip()->mapTo(panel, QPoint());
    return words.x() >= view.right() - 1 && words.y() < view.bottom();
  }
};

QTEST_MAIN(SmallScreenTest)
#include "test_small_screen.moc"
