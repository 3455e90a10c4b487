// Every top-level window opens inside the screen it opens on, with room for a window manager's
// frame. Run once per screen size: ctest sets QT_QPA_PLATFORM to an offscreen
// screen of FOVEA_TEST_SCREEN (tests/ui/screens/WxH.json).
#include <QApplication>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/common/window_fit.h"
#include "ui/explorer/main_window.h"
#include "ui/training/new_run_dialog.h"
#include "ui/training/training_window.h"

using namespace fovea::ui;

namespace {

QString describe(const QWidget* w) {
  const QRect g = w->frameGeometry();
  return QStringLiteral("%1 at %2,%3 %4x%5 on %6x%7")
      .arg(w->metaObject()->className())
      .arg(g.x()).arg(g.y()).arg(g.width()).arg(g.height())
      .arg(w->screen()->availableGeometry().width())
      .arg(w->screen()->availableGeometry().height());
}

/// Shown, `w` lies inside its screen with a window manager's frame to spare.
bool fits(QWidget* w) {
  const QRect screen = w->screen()->availableGeometry();
  const QRect frame = w->frameGeometry();
  return screen.contains(frame) && w->width() + kFrameAllowance.width() <= screen.width() &&
         w->height() + kFrameAllowance.height() <= screen.height();
}

}  // namespace

class WindowFitTest : public QObject {
  Q_OBJECT
  QTemporaryDir runs_;

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    // The screen is the one ctest asked for, not the offscreen default.
    const QString want = qEnvironmentVariable("FOVEA_TEST_SCREEN");
    QVERIFY2(!want.isEmpty(), "run through ctest (FOVEA_TEST_SCREEN names the screen)");
    const QSize s = QGuiApplication::primaryScreen()->availableGeometry().size();
    QCOMPARE(QStringLiteral("%1x%2").arg(s.width()).arg(s.height()), want);
  }

  void fitGeometryShrinksAndCentres() {
    const QRect small(0, 0, 1024, 700);
    const QRect g = fit_geometry(small, {1600, 940});
    QVERIFY(small.contains(g));
    QCOMPARE(g.size(), QSize(1024, 700) - kFrameAllowance);
    QCOMPARE(fit_geometry(QRect(0, 0, 2560, 1440), {1600, 940}).size(), QSize(1600, 940));
    // A saved size from a larger screen is clamped; a saved place that fits is kept.
    QVERIFY(small.contains(fit_geometry(small, {800, 600}, QRect(900, 600, 1600, 940))));
    QCOMPARE(fit_geometry(QRect(0, 0, 2560, 1440), {800, 600}, QRect(100, 120, 900, 700)), QRect(100, 120, 900, 700));
  }

  void theExplorerFitsAloneAndComparing() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(fits(&w), qPrintable(describe(&w)));
    // Two panels side by side: on a short screen its content scrolls; the window still fits.
    w.setCompareVisible(true);
    QTest::qWait(50);
    QVERIFY2(fits(&w), qPrintable(describe(&w)));
    QVERIFY2(w.minimumSizeHint().height() + kFrameAllowance.height() <= w.screen()->availableGeometry().height(),
             qPrintable(describe(&w)));
  }

  void anErrorShownDoesNotMakeTheContentScroll() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    if (w.screen()->availableGeometry().height() < 800) QSKIP("on a short screen the content scrolls anyway");
    auto* scroll = w.findChild<QScrollArea*>();
    QVERIFY(scroll != nullptr);
    QTest::qWait(50);
    QVERIFY(!scroll->verticalScrollBar()->isVisible());
    QVERIFY(!w.openImage(QStringLiteral("/a/long/path/to/some/folder/of/holiday/images/from/last/summer/in/the/mountains/"
                                        "and/by/the/sea/with/friends/and/family/not-there.png")));
    QVERIFY(!w.errorText().isEmpty());
    QTest::qWait(50);
    QVERIFY2(!scroll->verticalScrollBar()->isVisible(), "the error bar pushed the content into a scroll");
  }

  void theTrainingWindowFitsAndSoDoesItsSavedSize() {
    QSettings().setValue("training/runs_root", runs_.path());
    {
      MainWindow main;
      main.showTrainingWindow();
      TrainingWindow* w = main.trainingWindow();
      QVERIFY(QTest::qWaitForWindowExposed(w));
      QVERIFY2(fits(w), qPrintable(describe(w)));
      w->close();
    }
    // Saved on a larger screen: reopened, it is clamped to this one.
    QSettings().setValue("training/geometry", QRect(40, 40, 1600, 940));
    MainWindow main;
    main.showTrainingWindow();
    TrainingWindow* w = main.trainingWindow();
    QVERIFY(QTest::qWaitForWindowExposed(w));
    QVERIFY2(fits(w), qPrintable(describe(w)));
  }

  void theNewRunDialogFits() {
    TrainingWindow parent;
    NewRunDialog dialog(runs_.path(), &parent);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY2(fits(&dialog), qPrintable(describe(&dialog)));
  }
};

QTEST_MAIN(WindowFitTest)
#include "test_window_fit.moc"
