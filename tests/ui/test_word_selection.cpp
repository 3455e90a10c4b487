// Choosing a word in the caption explorer: a click selects,
// hover only previews; in compare mode a click on either strip selects in both and nothing
// jumps; at 1024x700 every chip shows and both images are the same size; a probe's or a
// take-away's line takes no space from the image; Escape or a right-click dismisses a probe; a
// take-away started while the caption plays stays (the player pauses); Space presses a focused
// button rather than playing the caption.
#include <QApplication>
#include <QPushButton>
#include <QStandardPaths>
#include <QtTest>

#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/probe_line.h"
#include "ui/explorer/take_away_line.h"
#include "ui/common/word_player.h"
#include "tests/ui/studio_test_basics.h"

using namespace fovea::ui;
using namespace fovea::test_ui;

namespace {
/// Where `w` is in its window: what must not move.
QRect inWindow(const QWidget* w, const QRect& r) { return QRect(w->mapTo(w->window(), r.topLeft()), r.size()); }
}  // namespace

class WordSelectionTest : public QObject {
  Q_OBJECT

  static std::unique_ptr<MainWindow> window(bool compare, QSize size = {1180, 800}) { return sampleWindow(compare, size); }

  /// Clicks the image's centre and waits for the probe.
  static void probeCentre(ExplorerPanel* panel) {
    QTest::mouseClick(panel->view(), Qt::LeftButton, {}, panel->view()->imageRect().center());
    QTRY_VERIFY_WITH_TIMEOUT(panel->view()->hasProbe(), kWait);
  }

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void hoverPreviewsAWordButOnlyAClickSelectsIt() {
    auto w = window(false);
    ExplorerPanel* panel = w->primaryPanel();
    CaptionStrip* strip = panel->strip();
    QVERIFY(strip->count() >= 4);
    const int chosen = 1;
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->wordRect(chosen).center());
    QCOMPARE(w->player()->current(), chosen);
    // The pointer crosses two more chips on its way to "Take it away".
    QTest::mouseMove(strip, strip->wordRect(chosen + 1).center());
    QTest::mouseMove(strip, strip->wordRect(chosen + 2).center());
    QCOMPARE(panel->view()->wordIndex(), chosen + 2);  // previewed while on the chip
    QCOMPARE(w->player()->current(), chosen);          // not selected
    QCOMPARE(panel->selectedWord(), chosen);
    QTest::mouseMove(panel->takeAway()->button());
    QTRY_COMPARE(panel->view()->wordIndex(), chosen);  // off the chips: the selected word again
    QTest::mouseClick(panel->takeAway()->button(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(panel->view()->hasRemoval(), kWait);
    QCOMPARE(w->player()->current(), chosen);
    const QString said = strip->word(chosen);
    QVERIFY2(panel->takeAway()->text().contains("Without what “" + said + "” looks at"), qPrintable(panel->takeAway()->text()));
  }

  void inCompareModeAClickOnEitherStripSelectsInBothAndNothingJumps() {
    auto w = window(true);
    ExplorerPanel* primary = w->primaryPanel();
    ExplorerPanel* other = w->comparePanel();
    QTest::mouseClick(primary->strip(), Qt::LeftButton, {}, primary->strip()->wordRect(1).center());
    probeCentre(primary);
    const QRect chips[2] = {inWindow(primary->strip(), primary->strip()->wordRect(0)),
                            inWindow(other->strip(), other->strip()->wordRect(0))};
    const QRect images[2] = {inWindow(primary->view(), primary->view()->imageRect()),
                             inWindow(other->view(), other->view()->imageRect())};
    const int k = 3;
    const QPoint at = other->strip()->wordRect(k).center();
    QTest::mouseClick(other->strip(), Qt::LeftButton, {}, at);
    settle();
    QTest::mouseMove(other->strip(), at);  // the pointer rests where it clicked, whatever moved under it
    settle();
    QCOMPARE(w->player()->current(), k);
    QCOMPARE(primary->selectedWord(), k);
    QCOMPARE(other->selectedWord(), k);
    QCOMPARE(primary->view()->wordIndex(), k);
    QVERIFY(!primary->view()->hasProbe());  // the probe belonged to the old word
    QCOMPARE(inWindow(primary->strip(), primary->strip()->wordRect(0)), chips[0]);
    QCOMPARE(inWindow(other->strip(), other->strip()->wordRect(0)), chips[1]);
    QCOMPARE(inWindow(primary->view(), primary->view()->imageRect()), images[0]);
    QCOMPARE(inWindow(other->view(), other->view()->imageRect()), images[1]);
  }

  void aProbePointIsWhereThePressWasEvenIfTheImageMovedBeforeTheRelease() {
    auto w = window(false);
    AttentionView* view = w->primaryPanel()->view();
    fovea::ProbeRegion got;
    connect(view, &AttentionView::regionSelected, this, [&got](const fovea::ProbeRegion& r) { got = r; });
    const QPoint at = view->imageRect().center();
    QTest::mousePress(view, Qt::LeftButton, {}, at);
    w->resize(w->width() - 300, w->height() - 200);  // the image shrinks and moves under the pointer
    QTRY_VERIFY(view->imageRect().center() != at);
    QTest::mouseRelease(view, Qt::LeftButton, {}, at);
    QVERIFY(got.point);
    const QSize image = view->image().size();
    QVERIFY2(std::abs(got.x0 - image.width() / 2.0) <= 2 && std::abs(got.y0 - image.height() / 2.0) <= 2,
             qPrintable(QStringLiteral("%1,%2 in %3x%4").arg(got.x0).arg(got.y0).arg(image.width()).arg(image.height())));
  }

  void atTenTwentyFourBySevenHundredEveryChipShowsAndBothImagesAreOneSize() {
    auto w = window(true, {1024, 700});
    for (ExplorerPanel* panel : {w->primaryPanel(), w->comparePanel()}) {
      QTest::mouseClick(panel->strip(), Qt::LeftButton, {}, panel->strip()->wordRect(2).center());
      QTest::mouseClick(panel->takeAway()->button(), Qt::LeftButton);
      QTRY_VERIFY_WITH_TIMEOUT(panel->view()->hasRemoval(), kWait);
    }
    settle();
    for (ExplorerPanel* panel : {w->primaryPanel(), w->comparePanel()}) {
      CaptionStrip* strip = panel->strip();
      const QRect last = strip->wordRect(strip->count() - 1);
      QVERIFY2(last.bottom() < strip->height(), qPrintable(QStringLiteral("last chip ends at %1 of %2").arg(last.bottom()).arg(strip->height())));
      QVERIFY2(inWindow(panel->view(), panel->view()->rect()).bottom() < inWindow(strip, strip->wordRect(0)).top(),
               "the image does not cover the words");
    }
    QCOMPARE(w->primaryPanel()->view()->imageRect().size(), w->comparePanel()->view()->imageRect().size());
    // Side by side at one height, though the two captions' strips differ.
    QCOMPARE(inWindow(w->primaryPanel()->view(), w->primaryPanel()->view()->imageRect()).top(),
             inWindow(w->comparePanel()->view(), w->comparePanel()->view()->imageRect()).top());
  }

  void aProbeOrATakeAwayLineTakesNoSpaceFromTheImage() {
    auto w = window(false);
    ExplorerPanel* panel = w->primaryPanel();
    QTest::mouseClick(panel->strip(), Qt::LeftButton, {}, panel->strip()->wordRect(1).center());
    const QRect image = inWindow(panel->view(), panel->view()->imageRect());
    const QRect chip = inWindow(panel->strip(), panel->strip()->wordRect(0));
    probeCentre(panel);
    settle();
    QVERIFY(!panel->probe()->text().isEmpty());
    QCOMPARE(inWindow(panel->view(), panel->view()->imageRect()), image);
    QCOMPARE(inWindow(panel->strip(), panel->strip()->wordRect(0)), chip);
    QTest::mouseClick(panel->takeAway()->button(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(panel->view()->hasRemoval(), kWait);
    settle();
    QCOMPARE(inWindow(panel->view(), panel->view()->imageRect()), image);
    QCOMPARE(inWindow(panel->strip(), panel->strip()->wordRect(0)), chip);
  }

  void escapeOrARightClickDismissesAProbe() {
    auto w = window(false);
    ExplorerPanel* panel = w->primaryPanel();
    probeCentre(panel);
    QTest::keyClick(w.get(), Qt::Key_Escape);
    QVERIFY(!panel->view()->hasProbe());
    QVERIFY(panel->probe()->text().isEmpty());
    probeCentre(panel);
    QTest::mouseClick(panel->view(), Qt::RightButton, {}, panel->view()->imageRect().center());
    QVERIFY(!panel->view()->hasProbe());
    QVERIFY(panel->probe()->text().isEmpty());
  }

  void aTakeAwayWhileTheCaptionPlaysPausesItAndStays() {
    auto w = window(false);
    ExplorerPanel* panel = w->primaryPanel();
    w->player()->setWordsPerSecond(20);  // the player would leave the word within 50 ms
    w->player()->play();
    QTest::mouseClick(panel->takeAway()->button(), Qt::LeftButton);
    QVERIFY(!w->player()->isPlaying());
    const int word = w->player()->current();
    QTRY_VERIFY_WITH_TIMEOUT(panel->view()->hasRemoval(), kWait);
    QTest::qWait(200);
    QCOMPARE(w->player()->current(), word);
    QVERIFY(panel->view()->hasRemoval());
    QVERIFY(!panel->takeAway()->text().isEmpty());
  }

  void spacePressesAFocusedButtonInsteadOfPlaying() {
    auto w = window(false);
    ExplorerPanel* panel = w->primaryPanel();
    QTest::mouseClick(panel->strip(), Qt::LeftButton, {}, panel->strip()->wordRect(2).center());
    panel->takeAway()->button()->setFocus();
    QTest::keyClick(panel->takeAway()->button(), Qt::Key_Space);
    QVERIFY(!w->player()->isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(panel->view()->hasRemoval(), kWait);
    // Elsewhere Space is still the player's key.
    w->setFocus();
    QTest::keyClick(w.get(), Qt::Key_Space);
    QVERIFY(w->player()->isPlaying());
  }
};

QTEST_MAIN(WordSelectionTest)
#include "test_word_selection.moc"
