// fovea-studio from the keyboard, offscreen: every Tab stop of the main window shows that it has
// the focus; the caption's words are Tab stops, and Enter or Space on one selects it; the
// thumbnail strip is reached with Tab and its arrow keys open the next image without a click.
#include <QAbstractButton>
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include "ui/common/word_player.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/thumbnail_strip.h"

#include "tests/ui/studio_test_basics.h"

using namespace fovea::ui;
using namespace fovea::test_ui;

namespace {

QString describe(const QWidget* w) {
  const auto* b = qobject_cast<const QAbstractButton*>(w);
  return QStringLiteral("%1 \"%2\"").arg(w->metaObject()->className(), b ? b->text() : w->objectName());
}

void tab(int times = 1) {
  for (int i = 0; i < times; ++i) QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
}
}  // namespace

class KeyboardTest : public QObject {
  Q_OBJECT
  MainWindow* w_ = nullptr;

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    w_ = new MainWindow;
    w_->loadModel(kSource + "/models/fashion-soft.ckpt");
    w_->resize(1280, 860);
    w_->show();
    QVERIFY(QTest::qWaitForWindowActive(w_));
    QVERIFY(w_->openFolder(kSource + "/resources/samples") > 0);
    QTRY_VERIFY_WITH_TIMEOUT(w_->primaryPanel()->hasCaption() && w_->primaryPanel()->strip()->count() > 2, kWait);
    w_->player()->pause();
  }

  void cleanupTestCase() { delete w_; }

  void everyTabStopShowsItsFocus() {
    w_->thumbnails()->setFocus();
    QWidget* first = QApplication::focusWidget();
    QVERIFY(first);
    QStringList unmarked, seen;
    for (int i = 0; i < 80; ++i) {
      QWidget* f = QApplication::focusWidget();
      const QImage focused = f->grab().toImage();
      tab();
      if (QApplication::focusWidget() == f) continue;  // a stop inside the widget (a chip)
      if (f->grab().toImage() == focused) unmarked << describe(f);
      seen << describe(f);
      if (QApplication::focusWidget() == first) break;
    }
    QVERIFY2(QApplication::focusWidget() == first, "Tab does not come round to where it started");
    QVERIFY2(unmarked.isEmpty(), qPrintable("no focus mark on: " + unmarked.join(", ") + "\nstops: " + seen.join(", ")));
  }

  void theWordsAreTabStopsAndEnterOrSpaceSelectsOne() {
    CaptionStrip* strip = w_->primaryPanel()->strip();
    w_->thumbnails()->setFocus();
    int guard = 0;
    while (QApplication::focusWidget() != strip && ++guard < 40) tab();
    QVERIFY2(QApplication::focusWidget() == strip, "Tab never reaches the caption's words");
    tab();  // the second word
    QCOMPARE(QApplication::focusWidget(), strip);
    QTest::keyClick(strip, Qt::Key_Return);
    QCOMPARE(w_->player()->current(), 1);
    QCOMPARE(strip->current(), 1);
    tab();
    QTest::keyClick(strip, Qt::Key_Space);
    QCOMPARE(strip->current(), 2);
    QVERIFY(!w_->player()->isPlaying());  // Space selected the word, it did not start the player
  }

  void theStripIsReachedWithTabAndItsArrowsMoveWithoutAClick() {
    w_->primaryPanel()->strip()->setFocus();
    int guard = 0;
    while (QApplication::focusWidget() != w_->thumbnails() && ++guard < 60) tab();
    QVERIFY2(QApplication::focusWidget() == w_->thumbnails(), "Tab never reaches the thumbnail strip");
    const QString before = w_->imagePath();
    QTest::keyClick(w_->thumbnails(), Qt::Key_Right);
    QTRY_VERIFY(w_->imagePath() != before);
    QCOMPARE(w_->imagePath(), w_->thumbnails()->files().value(w_->thumbnails()->files().indexOf(before) + 1));
    // With no image marked (as while a video plays), the first arrow opens an image too.
    w_->thumbnails()->setPlaying(QStringLiteral("clip.avi"));
    QTest::keyClick(w_->thumbnails(), Qt::Key_Right);
    QTRY_COMPARE(w_->imagePath(), w_->thumbnails()->files().value(0));
  }
};

QTEST_MAIN(KeyboardTest)
#include "test_keyboard.moc"
