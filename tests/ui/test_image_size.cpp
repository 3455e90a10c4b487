// The picture's size depends on the window only: a caption of one row or of several, a typed
// caption, an image unlike the training scenes (its warning), and errors stacking in the bar
// leave the image where it was, alone and with two models compared. Each error line says when it
// happened.
#include <QApplication>

#include <algorithm>
#include <cstdlib>
#include <QImage>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/common/word_player.h"
#include "tests/ui/studio_test_basics.h"

using namespace fovea::ui;
using namespace fovea::test_ui;

namespace {
constexpr int kLong = 30;  // words of a typed caption: three rows or more, even alone at 1180 px

/// Where the image view is in its window.
QRect viewInWindow(const ExplorerPanel* p) {
  const AttentionView* v = p->view();
  return QRect(v->mapTo(v->window(), QPoint(0, 0)), v->size());
}

QString describe(const QRect& r) { return QStringLiteral("%1x%2 at %3,%4").arg(r.width()).arg(r.height()).arg(r.x()).arg(r.y()); }

/// A typed caption of `words` words, all of them words the shipped models know.
QString typedCaption(int words) {
  const QStringList pool = {"a", "purple", "bag", "next", "to", "a", "red", "shirt", "and", "a", "blue", "shoe"};
  QStringList out;
  for (int i = 0; i < words; ++i) out << pool[i % pool.size()];
  return out.join(' ');
}
}  // namespace

class ImageSizeTest : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;

  std::unique_ptr<MainWindow> window(bool compare, QSize size) {
    auto w = sampleWindow(compare, size);
    settle(5);
    return w;
  }

  /// Types `text` as the caption and waits until every panel shown has scored it.
  static void type(MainWindow* w, const QString& text, int words) {
    w->setUserCaption(text);
    for (ExplorerPanel* p : {w->primaryPanel(), w->comparePanel()}) {
      if (p->isHidden()) continue;
      QTRY_VERIFY_WITH_TIMEOUT(ready(p) && p->strip()->count() == words, kWait);
    }
    settle(5);
  }

  void checkTheViewStays(bool compare, QSize size) {
    auto w = window(compare, size);
    QList<ExplorerPanel*> panels{w->primaryPanel()};
    if (compare) panels << w->comparePanel();
    QList<QRect> views, images;
    for (ExplorerPanel* p : panels) views << viewInWindow(p), images << p->view()->imageRect();
    const auto same = [&](const char* what) {
      settle(5);
      for (int i = 0; i < panels.size(); ++i) {
        QVERIFY2(viewInWindow(panels[i]) == views[i],
                 qPrintable(QStringLiteral("%1: the view is %2, it was %3").arg(what, describe(viewInWindow(panels[i])), describe(views[i]))));
        QVERIFY2(panels[i]->view()->imageRect() == images[i],
                 qPrintable(QStringLiteral("%1: the image is %2, it was %3")
                                .arg(what, describe(panels[i]->view()->imageRect()), describe(images[i]))));
      }
    };
    type(w.get(), QStringLiteral("bag"), 1);
    same("a caption of one word");
    type(w.get(), typedCaption(kLong), kLong);
    QVERIFY2(panels.first()->strip()->heightForWidth(panels.first()->strip()->width()) >
                 panels.first()->strip()->heightOfRows(2),
             "the long caption takes more than two rows");
    same("a caption of many rows");
    // The current word's chip scrolls into view when the caption is longer than its space.
    w->player()->setCurrent(kLong - 1);
    settle(5);
    const CaptionStrip* strip = panels.first()->strip();
    const QRect last(strip->mapTo(w.get(), strip->wordRect(kLong - 1).topLeft()), strip->wordRect(kLong - 1).size());
    const QWidget* space = strip->parentWidget();
    QVERIFY2(QRect(space->mapTo(w.get(), QPoint(0, 0)), space->size()).contains(last), "the current word's chip shows");
    w->setUserCaption(QString());
    for (ExplorerPanel* p : panels) QTRY_VERIFY_WITH_TIMEOUT(ready(p) && p->strip()->count() != kLong, kWait);
    same("the model's caption again");
    for (int i = 0; i < 3; ++i) QVERIFY(!w->openImage(tmp_.filePath(QStringLiteral("missing-%1.png").arg(i))));
    QCOMPARE(w->errorText().count('\n'), 2);  // three errors stacked
    same("three errors shown");
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(tmp_.isValid());
  }

  void aloneTheImageKeepsItsSize() { checkTheViewStays(false, {1180, 800}); }

  void comparedAtTenTwentyFourTheImagesKeepTheirSize() { checkTheViewStays(true, {1024, 700}); }

  void comparedInANarrowWindowThePanelsSplitItEvenly() {
    // A panel's notes (its references and scores, a take-away's line) wrap to the panel's width:
    // they do not widen one panel at the other's expense.
    auto w = window(true, {784, 752});
    const int a = w->primaryPanel()->width(), b = w->comparePanel()->width();
    QVERIFY2(std::abs(a - b) <= std::max(a, b) / 10, qPrintable(QStringLiteral("the panels are %1 and %2 px wide").arg(a).arg(b)));
  }

  void eachErrorLineSaysWhenAndGoesWhenItNoLongerApplies() {
    auto w = window(false, {1180, 800});
    QVERIFY(!w->openImage(tmp_.filePath("gone.png")));
    const QString line = w->errorText();
    QVERIFY2(QRegularExpression(QStringLiteral("^\\d\\d:\\d\\d:\\d\\d  .*gone\\.png")).match(line).hasMatch(), qPrintable(line));
    QVERIFY(w->openImage(kSample));  // an image opened: the file error no longer applies
    QVERIFY2(w->errorText().isEmpty(), qPrintable(w->errorText()));
  }

  void theWarningOfAnUnfamiliarImageTakesNoRowFromIt() {
    auto w = window(false, {1180, 800});
    const QRect view = viewInWindow(w->primaryPanel());
    const QString path = savedNoise(tmp_);
    QVERIFY(!path.isEmpty());
    QVERIFY(w->openImage(path));
    QTRY_VERIFY_WITH_TIMEOUT(!w->primaryPanel()->title()->unfamiliarText().isEmpty(), kWait);
    settle(5);
    QCOMPARE(viewInWindow(w->primaryPanel()), view);
  }
};

QTEST_MAIN(ImageSizeTest)
#include "test_image_size.moc"
