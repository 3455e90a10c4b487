// fovea-studio's explorer under the offscreen platform: open an image -> the caption shows;
// click a word -> the overlay changes; the model header, help, reference captions, Open Recent,
// probing a region, taking a word away and unfamiliar images.
#include "tests/ui/studio_ui_support.h"

using namespace fovea::test_ui;

class StudioTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;

 private Q_SLOTS:
  void initTestCase() { QVERIFY(readyToTest(tmp_)); }

  void openingAnImageShowsItsCaption() {
    auto w = captioned();
    auto* strip = w->primaryPanel()->strip();
    QVERIFY(strip->count() >= 3);
    QVERIFY(!strip->word(0).isEmpty());
    QCOMPARE(w->primaryPanel()->view()->image().isNull(), false);
    QVERIFY(w->errorText().isEmpty());
    QCOMPARE(w->recentFiles().value(0), QFileInfo(kSample).absoluteFilePath());
    QVERIFY2(w->thumbnails()->count() >= 8, "the image's folder fills the thumbnail strip");
  }

  void clickingAWordShowsItsAttention() {
    auto w = captioned();
    auto* strip = w->primaryPanel()->strip();
    auto* view = w->primaryPanel()->view();
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->wordRect(1).center());
    QCOMPARE(view->wordIndex(), 1);
    QVERIFY(!w->player()->isPlaying());
    const QImage first = view->renderedFrame();
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->wordRect(2).center());
    QCOMPARE(view->wordIndex(), 2);
    QCOMPARE(strip->current(), 2);
    const QImage second = view->renderedFrame();
    QCOMPARE(first.size(), second.size());
    QVERIFY(first != second);
  }

  void theTypedCaptionFieldIsUsableAtSmallWindowSizes() {
    for (const QSize size : {QSize(1180, 860), QSize(1024, 700)}) {
      MainWindow w;
      w.resize(size);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      auto* field = w.findChild<QLineEdit*>("user-caption");
      QVERIFY(field);
      QVERIFY2(field->isVisible(), "not hidden in a toolbar's overflow");
      QVERIFY2(field->width() >= 400, qPrintable(QString::number(field->width())));
      const QRect in_window(field->mapTo(&w, QPoint(0, 0)), field->size());
      QVERIFY(w.rect().contains(in_window));
    }
  }

  void theModelHeaderNamesRunsAndItsTooltipIsAReadableCard() {
    auto w = captioned();
    const QString card = w->primaryPanel()->title()->textToolTip();
    for (const char* part : {"Attention", "soft", "Trained on", "fashion-scenes", "112", "Validation BLEU-4", "Vocabulary", "48 words"})
      QVERIFY2(card.contains(part), qPrintable(part + QString(" missing from: ") + card));
    QVERIFY2(!card.contains("{") && !card.contains("\"encoder_widths\""), "not a JSON dump");
    QVERIFY(card.contains("fashion-soft.md"));  // the card shipped beside the model
    // A run's checkpoint is named with its run folder.
    QVERIFY(QDir().mkpath(tmp_.filePath("run-a")));
    QFile(tmp_.filePath("run-a/metrics.jsonl")).open(QIODevice::WriteOnly);
    QCOMPARE(model_file_title(tmp_.filePath("run-a/best.ckpt")), QString("run-a/best.ckpt"));
    QCOMPARE(model_file_title(kSoft), QString("fashion-soft.ckpt"));
  }

  void compareWithOffersTheShippedModelsByNameAndTheHeaderSaysWhetherAttentionWasTaught() {
    auto w = captioned();
    auto* menu = w->findChild<QMenu*>("compare-with-menu");
    QVERIFY(menu);
    QAction* hard = nullptr;
    QStringList names;
    for (auto* action : menu->actions()) {
      names << action->text();
      if (action->toolTip() == QFileInfo(kHard).absoluteFilePath() || action->toolTip() == kHard) hard = action;
    }
    QVERIFY2(names.contains("Supervised soft attention") && names.contains("Supervised hard attention"), qPrintable(names.join(" | ")));
    QVERIFY2(hard, qPrintable(names.join(" | ")));
    hard->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->comparePanel()->hasCaption() && !w->comparePanel()->isHidden(), kWait);
    QCOMPARE(QFileInfo(w->comparePanel()->modelPath()).fileName(), QString("fashion-hard.ckpt"));
    // The shipped models were trained with box supervision, and the header says so in words.
    QVERIFY2(w->comparePanel()->title()->text().contains("supervised by object boxes"), qPrintable(w->comparePanel()->title()->text()));
    QVERIFY(w->comparePanel()->title()->textToolTip().contains("Where it looks"));
    // The model trained by the paper's objective alone says that its attention was not taught.
    QAction* paper = nullptr;
    for (auto* action : menu->actions())
      if (action->toolTip().endsWith("fashion-soft-paper.ckpt")) paper = action;
    QVERIFY2(paper, qPrintable(names.join(" | ")));
    QCOMPARE(paper->text(), QString("Soft attention, the paper's objective alone"));
    paper->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->comparePanel()->title()->text().contains("learned from captions alone"), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(w->comparePanel()->hasCaption(), kWait);
  }

  void helpListsTheShortcutsAndPlaybackHasAMenu() {
    MainWindow w;
    const QString keys = StudioMenus::shortcutsText(w);
    for (const char* part : {"Space", "Play / Pause", "Previous Word", "Next Word", "Faster", "Ctrl+O", "Open Image"})
      QVERIFY2(keys.contains(part), qPrintable(part + QString(" missing from: ") + keys));
    QVERIFY(StudioMenus::quickStartText().contains("Export Figure"));
    QMenu* playback = nullptr;
    for (auto* a : w.menuBar()->actions()) {
      if (a->menu() && a->text().remove('&') == "Playback") playback = a->menu();
    }
    QVERIFY(playback);
    QStringList items;
    for (auto* a : playback->actions()) items << a->text().remove('&');
    QVERIFY2(items.contains("Play / Pause") && items.contains("Next Word") && items.contains("Slower"), qPrintable(items.join("|")));
    // ']' speeds the player up.
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const double before = w.player()->wordsPerSecond();
    QTest::keyClick(&w, Qt::Key_BracketRight);
    QVERIFY(w.player()->wordsPerSecond() > before);
  }

  void theSampleScenesShowTheirReferenceCaptionsAndScores() {
    auto w = captioned();  // a sample scene: its folder has captions.json
    const QString text = w->primaryPanel()->notes()->references();
    QVERIFY2(text.contains("Reference:") && text.contains("BLEU-4") && text.contains("CIDEr-D"), qPrintable(text));
    QVERIFY2(text.contains("a yellow pullover"), qPrintable(text));  // the first reference of test_00001.png
    // An image without references shows none.
    const QString lone = tmp_.filePath("lone/scene.png");
    QVERIFY(QDir().mkpath(tmp_.filePath("lone")));
    QVERIFY(QFile::copy(kSample, lone));
    QVERIFY(w->openImage(lone));
    QTRY_VERIFY_WITH_TIMEOUT(w->primaryPanel()->hasCaption() && !w->primaryPanel()->session()->isBusy(), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(w->primaryPanel()->notes()->references().isEmpty(), kWait);
  }

  void aWordChipIsNotHighlightedOnceTheMouseLeaves() {
    auto w = captioned();
    auto* strip = w->primaryPanel()->strip();
    QMouseEvent move(QEvent::MouseMove, QPointF(strip->wordRect(1).center()), QPointF(strip->mapToGlobal(strip->wordRect(1).center())),
                     Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(strip, &move);
    QCOMPARE(strip->hoveredIndex(), 1);
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(strip, &leave);
    QCOMPARE(strip->hoveredIndex(), -1);
  }

  void openRecentNamesFilesByFolderAndSkipsBrowsing() {
    QSettings().remove("recentFiles");
    QVERIFY(QDir().mkpath(tmp_.filePath("a")) && QDir().mkpath(tmp_.filePath("b")));
    const QString a = tmp_.filePath("a/scene.png"), b = tmp_.filePath("b/scene.png"), b2 = tmp_.filePath("b/other.png");
    for (const auto& f : {a, b, b2}) QVERIFY(QFile::copy(kSample, f));
    MainWindow w;
    QVERIFY(w.openImage(a));
    QVERIFY(w.openImage(b));
    QCOMPARE(w.recentFiles(), (QStringList{b, a}));
    auto* menu = w.findChild<QMenu*>("recent-menu");
    QVERIFY(menu);
    QStringList texts;
    for (auto* action : menu->actions()) texts << action->text();
    QVERIFY2(texts.contains("b/scene.png") && texts.contains("a/scene.png"), qPrintable(texts.join(" | ")));
    // Clicking through the folder's thumbnails opens images without filling the list.
    auto* thumbs = w.findChild<ThumbnailStrip*>();
    QVERIFY(thumbs);
    Q_EMIT thumbs->imageChosen(b2);
    QCOMPARE(w.imagePath(), b2);
    QCOMPARE(w.recentFiles(), (QStringList{b, a}));
  }

  void draggingARegionAsksWhatTheModelWouldSayThere() {
    auto w = captioned();  // test_00001: a yellow pullover, a white shirt, a pink sneaker and a green top
    auto* panel = w->primaryPanel();
    auto* strip = panel->strip();
    auto* view = panel->view();
    // The noun after "yellow": what the model calls the yellow pullover.
    const int noun = int(stripWords(strip).indexOf("yellow")) + 1;
    QVERIFY2(noun >= 1 && noun < strip->count(), qPrintable(stripWords(strip).join(' ')));
    const QString said = strip->word(noun);
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->wordRect(noun).center());
    const QImage own = view->renderedFrame();
    // The yellow pullover's box from the samples' captions.json, in image pixels, on screen.
    QFile refs(kSource + "/resources/samples/captions.json");
    QVERIFY(refs.open(QIODevice::ReadOnly));
    QRectF box;
    for (const auto& value : QJsonDocument::fromJson(refs.readAll()).array()) {
      const QJsonObject entry = value.toObject();
      if (entry[QStringLiteral("file")].toString() != QLatin1String("test_00001.png")) continue;
      for (const auto& o : entry[QStringLiteral("objects")].toArray())
        if (o.toObject()[QStringLiteral("noun")].toString() == QLatin1String("pullover")) {
          const auto b = o.toObject()[QStringLiteral("box")].toArray();
          box = QRectF(QPointF(b[0].toDouble(), b[1].toDouble()), QPointF(b[2].toDouble(), b[3].toDouble()));
        }
    }
    QVERIFY(!box.isEmpty());
    const QRect shown = view->imageRect();
    const double scale = double(shown.width()) / view->image().width();
    const QPoint from = shown.topLeft() + (box.topLeft() * scale).toPoint() + QPoint(2, 2);
    const QPoint to = shown.topLeft() + (box.bottomRight() * scale).toPoint() - QPoint(2, 2);
    QTest::mousePress(view, Qt::LeftButton, {}, from);
    QTest::mouseMove(view, (from + to) / 2);
    QTest::mouseMove(view, to);
    QTest::mouseRelease(view, Qt::LeftButton, {}, to);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasProbe(), kWait);
    // Looking at the pullover's box, it names the pullover (or what it called it in its caption).
    QVERIFY2(panel->probe()->text().contains("<b>pullover</b>") || panel->probe()->text().contains("<b>" + said + "</b>"),
             qPrintable(panel->probe()->text()));
    QVERIFY2(panel->probe()->text().contains("a yellow"), qPrintable(panel->probe()->text()));
    QVERIFY2(view->renderedFrame() != own, "the view shows the forced attention");
    // Another word: the probe goes.
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->wordRect(0).center());
    QVERIFY(!view->hasProbe());
    QVERIFY(panel->probe()->text().isEmpty());
  }

  void takeItAwayShowsTheImageWithoutWhatTheWordLooksAtAndAControl() {
    auto w = captioned();  // test_00001: a yellow pullover, ...
    auto* panel = w->primaryPanel();
    auto* strip = panel->strip();
    auto* view = panel->view();
    auto* button = panel->takeAway()->button();
    const int noun = int(stripWords(strip).indexOf("yellow")) + 1;  // the yellow pullover's noun
    QVERIFY2(noun >= 1 && noun < strip->count(), qPrintable(stripWords(strip).join(' ')));
    const QString said = strip->word(noun);
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->wordRect(noun).center());
    const QImage own = view->renderedFrame();
    QVERIFY(button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasRemoval(), kWait);
    const QString text = panel->takeAway()->text();
    QVERIFY2(text.contains("Without what “" + said + "” looks at") && text.contains("Control"), qPrintable(text));
    QVERIFY2(text.contains("it now says"), qPrintable(text));
    QVERIFY2(view->renderedFrame() != own, "the view shows the image without the attended cells");
    // The button puts it back.
    QCOMPARE(button->text(), QStringLiteral("Put it back"));
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(!view->hasRemoval());
    QVERIFY(panel->takeAway()->text().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(view->renderedFrame(), own, 5000);  // once the layout gives the line back
    // Taken away again, then another word: the removal goes.
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(view->hasRemoval(), kWait);
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->wordRect(0).center());
    QVERIFY(!view->hasRemoval());
    QVERIFY(panel->takeAway()->text().isEmpty());
    QCOMPARE(button->text(), QStringLiteral("Take it away"));
  }

  void anImageUnlikeTheTrainingScenesSaysItsCaptionIsUnreliable() {
    auto w = captioned();  // a sample scene: familiar
    QVERIFY2(w->primaryPanel()->title()->unfamiliarText().isEmpty(), qPrintable(w->primaryPanel()->title()->unfamiliarText()));
    const QString path = savedNoise(tmp_);
    QVERIFY(!path.isEmpty());
    QVERIFY(w->openImage(path));
    QTRY_VERIFY_WITH_TIMEOUT(!w->primaryPanel()->title()->unfamiliarText().isEmpty(), kWait);
    QVERIFY2(w->primaryPanel()->title()->unfamiliarText().contains("fashion-soft"), qPrintable(w->primaryPanel()->title()->unfamiliarText()));
    QVERIFY(w->openImage(kSample));
    QTRY_VERIFY_WITH_TIMEOUT(w->primaryPanel()->title()->unfamiliarText().isEmpty(), kWait);
  }

  void theBeamControlTakesTheCaptionSettingsRange() {
    auto w = captioned();
    QSpinBox* beam = nullptr;
    for (auto* spin : w->findChildren<QSpinBox*>()) {
      if (spin->prefix().contains(QStringLiteral("beam"))) beam = spin;
    }
    QVERIFY(beam != nullptr);
    const auto& row = fovea::caption_setting("beam");
    QCOMPARE(beam->minimum(), int(row.min));
    QCOMPARE(beam->maximum(), int(row.max));
  }
};

QTEST_MAIN(StudioTest)
#include "test_studio.moc"
