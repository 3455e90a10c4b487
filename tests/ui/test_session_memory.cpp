// The studio opens as the last session left it: the image shown (else its folder) and compare
// mode with the compared model; an image or folder that has gone since is passed over quietly.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/session_memory.h"
#include "ui/explorer/thumbnail_strip.h"

#include "tests/ui/studio_test_basics.h"

using namespace fovea::ui;
using namespace fovea::test_ui;


class SessionMemoryTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  /// A window as fovea-studio opens it: the model, then what the last session showed.
  static MainWindow* reopened(bool* opened) {
    auto* w = new MainWindow;
    w->loadModel(kSoft);
    restore_compare_mode(*w);
    *opened = reopen_last_shown(*w);
    w->show();
    return w;
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    for (const char* name : {"test_00000.png", "test_00001.png", "test_00002.png"})
      QVERIFY(QFile::copy(kSource + "/resources/samples/" + name, dir_.filePath(name)));
  }

  void theImageAndCompareModeComeBack() {
    const QString image = QFileInfo(dir_.filePath("test_00002.png")).absoluteFilePath();
    {
      MainWindow w;
      w.loadModel(kSoft);
      w.show();
      QVERIFY(w.openImage(image));
      w.loadCompareModel(kHard);
      QVERIFY(!w.comparePanel()->isHidden());
      QTRY_VERIFY_WITH_TIMEOUT(w.comparePanel()->hasCaption(), kWait);
      QVERIFY(w.close());
    }
    QTRY_COMPARE(QSettings().value(QStringLiteral("session/image")).toString(), image);
    QTRY_VERIFY(QSettings().value(QStringLiteral("session/compare")).toBool());
    bool opened = false;
    MainWindow* w = reopened(&opened);
    QVERIFY(opened);
    QCOMPARE(w->imagePath(), image);
    QVERIFY(!w->comparePanel()->isHidden());
    QCOMPARE(QSettings().value(QStringLiteral("session/compare_model")).toString(), kHard);
    QTRY_COMPARE_WITH_TIMEOUT(QFileInfo(w->comparePanel()->modelPath()).fileName(), QStringLiteral("fashion-hard.ckpt"), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(w->comparePanel()->hasCaption() && w->primaryPanel()->hasCaption(), kWait);
    w->setCompareVisible(false);
    QVERIFY(w->close());
    delete w;
    QTRY_VERIFY(!QSettings().value(QStringLiteral("session/compare")).toBool());
    w = reopened(&opened);
    QVERIFY(w->comparePanel()->isHidden());  // leaving compare mode is remembered too
    delete w;
  }

  void aMissingImageFallsBackQuietly() {
    QVERIFY(QFile::remove(dir_.filePath("test_00002.png")));
    bool opened = false;
    MainWindow* w = reopened(&opened);
    QVERIFY(opened);  // its folder instead
    QCOMPARE(QFileInfo(w->imagePath()).absolutePath(), QFileInfo(dir_.path()).absoluteFilePath());
    QVERIFY2(w->errorText().isEmpty(), qPrintable(w->errorText()));
    delete w;
    dir_.remove();
    w = reopened(&opened);
    QVERIFY(!opened);  // nothing left: the caller opens the samples
    QVERIFY2(w->errorText().isEmpty(), qPrintable(w->errorText()));
    delete w;
  }
};

QTEST_MAIN(SessionMemoryTest)
#include "test_session_memory.moc"
