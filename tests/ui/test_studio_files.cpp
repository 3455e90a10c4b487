// fovea-studio's explorer under the offscreen platform: the player steps through the words
// without re-laying out the window; broken files show a message and the window keeps working;
// exports hold one panel per word; a typed caption is scored; two models compare.
#include "tests/ui/studio_ui_support.h"

using namespace fovea::test_ui;

class StudioFilesTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;

  /// A file of 4 KiB of 'x' in the test's folder: not a model, not an image.
  QString junkFile(const QString& name) {
    const QString path = tmp_.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(QByteArray(4096, 'x'));
    return path;
  }

 private Q_SLOTS:
  void initTestCase() { QVERIFY(readyToTest(tmp_)); }

  void thePlayerStepsThroughTheWords() {
    auto w = captioned();
    WordPlayer* p = w->player();
    QCOMPARE(p->count(), w->primaryPanel()->strip()->count());
    p->pause();
    p->setCurrent(0);
    p->stepForward();
    QCOMPARE(w->primaryPanel()->view()->wordIndex(), 1);
    p->stepBack();
    p->stepBack();
    QCOMPARE(w->primaryPanel()->view()->wordIndex(), p->count() - 1);  // stepping back from the first word wraps
    p->setWordsPerSecond(20);
    const int before = p->current();
    p->play();
    QTRY_VERIFY_WITH_TIMEOUT(p->current() != before, 5000);
  }

  void playingTheWordsNeverReLaysOutTheWindow() {
    // Each word changes the overlay, the highlighted chip and the readout line; none of it may
    // change a size, or every word re-lays out the window (a QLabel readout did: ~4 layout passes
    // per word, milliseconds of GUI thread 8 times a second).
    auto w = captioned();
    struct LayoutRequests : QObject {
      int count = 0;
      bool eventFilter(QObject* o, QEvent* e) override {
        if (e->type() == QEvent::LayoutRequest && o->isWidgetType()) ++count;
        return false;
      }
    } requests;
    WordPlayer* p = w->player();
    p->pause();  // (the play button's icon changes: one layout pass, before counting)
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
    qApp->installEventFilter(&requests);
    for (int i = 0; i < 2 * p->count(); ++i) {
      p->stepForward();
      QCoreApplication::processEvents();
    }
    qApp->removeEventFilter(&requests);
    QCOMPARE(requests.count, 0);
    QCOMPARE(w->primaryPanel()->view()->wordIndex(), p->current());
  }

  void brokenFilesShowAMessageAndTheWindowKeepsWorking() {
    auto w = captioned();
    const QString text = tmp_.filePath("notes.png");
    QFile f(text);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a PNG file");
    f.close();
    QVERIFY(!w->openImage(text));
    QVERIFY2(w->errorText().contains(text), qPrintable(w->errorText()));
    QVERIFY(!w->openImage(tmp_.filePath("missing.jpg")));
    QVERIFY(w->errorText().contains("missing.jpg"));

    w->loadModel(junkFile("corrupt.ckpt"));
    QTRY_VERIFY_WITH_TIMEOUT(w->errorText().contains("corrupt.ckpt"), kWait);
    QCOMPARE(w->errorText().count(QStringLiteral("corrupt.ckpt")), 1);  // the path said once
    QVERIFY2(w->errorText().contains(QStringLiteral("not a Fovea model file")), qPrintable(w->errorText()));
    QVERIFY2(w->errorText().contains("missing.jpg"), qPrintable(w->errorText()));  // the earlier error stays beside it
    // The previous model is still loaded, named above the image, and captions the next image.
    QCOMPARE(w->primaryPanel()->modelPath(), kSoft);
    QVERIFY2(w->primaryPanel()->title()->text().contains("fashion-soft.ckpt") &&
                 !w->primaryPanel()->title()->text().contains("Loading"),
             qPrintable(w->primaryPanel()->title()->text()));
    QVERIFY(w->openImage(kSource + "/resources/samples/test_00002.png"));
    QTRY_VERIFY_WITH_TIMEOUT(w->primaryPanel()->hasCaption() && w->primaryPanel()->strip()->count() > 0, kWait);
  }

  void grayscaleAlphaAndHugeImagesAreCaptioned() {
    QImage rgb(kSample);
    const QString gray = tmp_.filePath("gray.png"), alpha = tmp_.filePath("alpha.png"), huge = tmp_.filePath("huge.bmp");
    QVERIFY(rgb.convertToFormat(QImage::Format_Grayscale8).save(gray));
    QImage a = rgb.convertToFormat(QImage::Format_ARGB32);
    for (int y = 0; y < a.height() / 2; ++y)
      for (int x = 0; x < a.width(); ++x) a.setPixelColor(x, y, QColor(0, 0, 0, 0));
    QVERIFY(a.save(alpha));
    QVERIFY(rgb.scaled(5000, 5000).save(huge));
    for (const QString& path : {gray, alpha, huge}) {
      auto w = captioned(path);
      QVERIFY2(w->errorText().isEmpty(), qPrintable(w->errorText()));
      QVERIFY(w->primaryPanel()->strip()->count() > 0);
      QVERIFY(w->primaryPanel()->view()->image().width() <= 2048);
    }
  }

  void exportsHoldOnePanelPerWord() {
    auto w = captioned();
    const int words = w->primaryPanel()->strip()->count();
    const QString png = tmp_.filePath("fig.png"), svg = tmp_.filePath("fig.svg"), pdf = tmp_.filePath("fig.pdf");
    QVERIFY(w->exports()->exportFigure(png));
    QVERIFY(w->exports()->exportFigure(svg));
    QVERIFY(w->exports()->exportFigure(pdf));
    QVERIFY(!QImage(png).isNull());
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    const QByteArray svg_text = s.readAll();
    QCOMPARE(count(svg_text, "font-weight=\"bold\""), words + 1);  // one label per panel, as text
    QVERIFY(QSvgRenderer(svg).isValid());
    QFile p(pdf);
    QVERIFY(p.open(QIODevice::ReadOnly));
    const QByteArray pdf_bytes = p.readAll();
    QVERIFY(pdf_bytes.startsWith("%PDF-"));
    QVERIFY(pdf_bytes.contains("/FontFile"));  // the labels' font is embedded
    QVERIFY(w->exports()->exportFrames(tmp_.filePath("frames")));
    QCOMPARE(QDir(tmp_.filePath("frames")).entryList({"*.png"}).size(), words);
    QVERIFY(w->exports()->exportView(tmp_.filePath("view.png")));
    QVERIFY(!QImage(tmp_.filePath("view.png")).isNull());
    QVERIFY(!w->exports()->exportFigure(tmp_.filePath("fig.doc")));
    QVERIFY(w->errorText().contains("fig.doc"));
  }

  void theViewAndTheModelAreThereAgainNextSession() {
    QSettings().remove(QStringLiteral("view"));
    QSize saved;
    {
      MainWindow w;
      w.loadModel(kHard);
      w.show();
      QTRY_VERIFY_WITH_TIMEOUT(w.primaryPanel()->session()->hasModel(), kWait);
      w.findChild<QSpinBox*>("beam")->setValue(5);
      w.findChild<QComboBox*>("overlay")->setCurrentText(QStringLiteral("viridis"));
      w.findChild<QCheckBox*>("smooth")->setChecked(false);
      w.findChild<QSlider*>("speed")->setValue(7);
      w.resize(w.size() - QSize(40, 20));
      saved = w.size();
      QVERIFY(w.close());
    }
    QTRY_VERIFY(QSettings().value("view/speed").toInt() == 7);  // written on a worker
    QTRY_VERIFY(QFileInfo(QSettings().value("view/model").toString()) == QFileInfo(kHard));
    MainWindow w;
    QCOMPARE(w.findChild<QSpinBox*>("beam")->value(), 3);  // a new window starts from the defaults...
    w.restoreView();  // ...and fovea-studio, unless it takes a screenshot, restores the last session's
    QCOMPARE(w.findChild<QSpinBox*>("beam")->value(), 5);
    QCOMPARE(w.findChild<QComboBox*>("overlay")->currentText(), QStringLiteral("viridis"));
    QVERIFY(!w.findChild<QCheckBox*>("smooth")->isChecked());
    QCOMPARE(w.findChild<QSlider*>("speed")->value(), 7);
    QCOMPARE(w.size(), saved);
    QCOMPARE(QFileInfo(remembered_model()), QFileInfo(kHard));
    QSettings().remove(QStringLiteral("view"));
  }

  void aFigureNamedWithoutExtensionTakesTheChosenFormats() {
    QCOMPARE(with_suffix_of("/a/fig", "PDF (*.pdf)"), QStringLiteral("/a/fig.pdf"));
    QCOMPARE(with_suffix_of("/a/fig", "SVG (*.svg)"), QStringLiteral("/a/fig.svg"));
    QCOMPARE(with_suffix_of("/a/fig.png", "PDF (*.pdf)"), QStringLiteral("/a/fig.png"));  // a typed one stays
    QCOMPARE(with_suffix_of("/a.b/fig", ""), QStringLiteral("/a.b/fig"));
  }

  void aTypedCaptionIsScoredWordByWord() {
    auto w = captioned();
    w->setUserCaption("a purple bag");
    auto* strip = w->primaryPanel()->strip();
    QTRY_VERIFY_WITH_TIMEOUT(strip->count() == 3 && strip->word(2) == "bag", kWait);
    const auto& c = w->primaryPanel()->caption();
    QCOMPARE(int(c.words.size()), 3);
    for (const auto& word : c.words) {
      QVERIFY(word.log_prob <= 0);
      QCOMPARE(int(word.alpha.size()), c.grid_h * c.grid_w);
    }
    w->setUserCaption(QString());
    QTRY_VERIFY_WITH_TIMEOUT(strip->count() > 3, kWait);
  }

  void theFigureDialogShowsTheSizeAndRefusesValuesOutOfRange() {
    auto w = captioned();
    ExportSettings s;
    s.figure_width = QStringLiteral("column");
    s.columns = 3;
    const QString three = w->exports()->describeFigure(s);
    QVERIFY2(three.startsWith(QStringLiteral("3 columns × ")), qPrintable(three));
    s.columns = 0;
    QVERIFY2(w->exports()->describeFigure(s).contains(QStringLiteral(" px (PNG at 300 dpi)")), qPrintable(w->exports()->describeFigure(s)));
    FigureExportDialog d(s, [&](const ExportSettings& chosen) { return w->exports()->describeFigure(chosen); });
    QVERIFY(!d.previewText().isEmpty());
    auto* width = d.findChild<QComboBox*>();
    width->setCurrentIndex(2);  // custom
    auto* cm = d.findChild<QDoubleSpinBox*>();
    cm->setValue(0.5);  // kept as typed, then refused by name
    QVERIFY2(d.problem().contains(QStringLiteral("0.5 cm")), qPrintable(d.problem()));
    d.accept();
    QVERIFY(d.result() != QDialog::Accepted);
    cm->setValue(12);
    QVERIFY(d.problem().isEmpty());
    for (auto* spin : d.findChildren<QSpinBox*>()) {
      if (spin->suffix() == QStringLiteral(" dpi")) spin->setValue(5000);
    }
    QVERIFY2(d.problem().contains(QStringLiteral("5000 dpi")), qPrintable(d.problem()));
  }

  void anUnreadableThumbnailKeepsItsNameAndTheStripFollowsTheView() {
    QDir dir(tmp_.filePath("thumbs"));
    QVERIFY(dir.mkpath("."));
    QVERIFY(QFile::copy(kSample, dir.filePath("a_scene.png")));
    QFile bad(dir.filePath("not_an_image_really.png"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("text, not pixels");
    bad.close();
    auto w = captioned();
    QCOMPARE(w->openFolder(dir.path()), 2);
    auto* strip = w->thumbnails();
    QTRY_VERIFY_WITH_TIMEOUT(w->primaryPanel()->strip()->count() > 0, kWait);
    QCOMPARE(strip->item(1)->text(), QStringLiteral("not_an_image_really.png"));  // not "notani…dable)"
    QTRY_VERIFY(strip->item(1)->toolTip().contains(QStringLiteral("cannot be read")));  // read on a worker
    // A thin image (3x400, 0x72 scaled) is read too.
    QImage thin(3, 400, QImage::Format_RGB32);
    thin.fill(Qt::red);
    QVERIFY(thin.save(dir.filePath("thin.png")));
    strip->setFolder(dir.path());
    QCOMPARE(strip->count(), 3);
    const auto shows_red = [&] {
      const QImage icon = strip->item(2)->icon().pixmap(72).toImage();
      for (int x = 0; x < icon.width(); ++x) {
        if (icon.pixelColor(x, icon.height() / 2) == QColor(Qt::red)) return true;
      }
      return false;
    };
    QTRY_VERIFY(shows_red());
    QVERIFY(!strip->item(2)->toolTip().contains(QStringLiteral("cannot be read")));
    strip->setFolder(dir.path());  // back to the list as it was opened
    strip->markCurrent(dir.filePath("a_scene.png"));
    // A folder whose first file is broken opens its first image that reads, and names the other.
    QDir first(tmp_.filePath("broken-first"));
    QVERIFY(first.mkpath("."));
    QVERIFY(QFile::copy(dir.filePath("not_an_image_really.png"), first.filePath("0_broken.png")));
    QVERIFY(QFile::copy(kSample, first.filePath("b_scene.png")));
    QCOMPARE(w->openFolder(first.path()), 2);
    QVERIFY(w->imagePath().endsWith(QStringLiteral("broken-first/b_scene.png")));
    QCOMPARE(strip->currentRow(), 1);
    QVERIFY(w->errorText().contains(QStringLiteral("0_broken.png")));
    QVERIFY(w->openFolder(dir.path()) == 3 && w->imagePath().endsWith(QStringLiteral("a_scene.png")));
    QCOMPARE(strip->currentRow(), 0);
    strip->setCurrentRow(1);  // as a click does: the file is opened, fails, and is named
    QTRY_VERIFY_WITH_TIMEOUT(w->errorText().contains(QStringLiteral("not_an_image_really.png")), kWait);
    QCOMPARE(strip->currentRow(), 0);  // the strip shows what the view still shows
    QVERIFY(w->imagePath().endsWith(QStringLiteral("a_scene.png")));
  }

  void aFolderWithoutImagesLeavesTheStripAsItWas() {
    auto w = captioned();
    auto* strip = w->thumbnails();
    const QStringList files = strip->files();
    const QString folder = strip->folder();
    QVERIFY(!files.isEmpty());
    QDir empty(tmp_.filePath("no-images"));
    QVERIFY(empty.mkpath("."));
    QFile notes(empty.filePath("notes.txt"));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("no pixels here");
    notes.close();
    QCOMPARE(w->openFolder(empty.path()), 0);
    QVERIFY(w->errorText().contains(QStringLiteral("no image files in this folder")));
    QCOMPARE(strip->files(), files);  // the strip still shows where the image shown is
    QCOMPARE(strip->count(), int(files.size()));
    QCOMPARE(strip->folder(), folder);
    QCOMPARE(strip->currentRow(), int(files.indexOf(w->imagePath())));
    QVERIFY(strip->currentRow() >= 0);
  }

  void aTypedWordTheModelDoesNotKnowSaysSo() {
    auto w = captioned();
    w->setUserCaption("a zebra bag");
    auto* strip = w->primaryPanel()->strip();
    QTRY_VERIFY_WITH_TIMEOUT(strip->count() == 3 && strip->word(2) == "bag", kWait);
    QCOMPARE(strip->wordDetail(1), QStringLiteral("not a word it knows"));
    QVERIFY(strip->wordDetail(2).startsWith(QStringLiteral("p ")));
  }

  void anotherBeamWidthKeepsTheWordBeingStudied() {
    QCOMPARE(word_to_keep({"a", "red", "bag"}, 2, {"a", "big", "red", "bag"}), 3);  // the same word
    QCOMPARE(word_to_keep({"a", "red", "bag", "left"}, 3, {"a", "bag"}), 1);       // else the same place
    QCOMPARE(word_to_keep({"a", "bag"}, -1, {"a", "bag"}), 0);
    auto w = captioned();
    auto* player = w->player();
    auto* strip = w->primaryPanel()->strip();
    player->pause();
    player->setCurrent(3);
    const QString studied = strip->word(3);
    QSignalSpy shown(w->primaryPanel(), &ExplorerPanel::captionShown);
    w->decoding()->setBeam(1);  // greedy: a caption of its own, of the same image
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kWait);
    QVERIFY(!player->isPlaying());  // the word being studied stays, and so does the pause
    QStringList words;
    for (int i = 0; i < strip->count(); ++i) words << strip->word(i);
    if (words.contains(studied)) QCOMPARE(strip->word(player->current()), studied);
    else QCOMPARE(player->current(), std::min(3, strip->count() - 1));
  }

  void sampledGlimpsesAreOfferedOnlyWhileAHardModelIsShown() {
    auto w = captioned();  // the shipped soft model
    QVERIFY(!w->decoding()->glimpseSwitchEnabled());
    w->loadCompareModel(kHard);
    QTRY_VERIFY_WITH_TIMEOUT(w->comparePanel()->hasCaption() && w->comparePanel()->modelPath() == kHard, kWait);
    QVERIFY(w->decoding()->glimpseSwitchEnabled());
    // Only the soft model's β gates its context; the hard model's card claims no gate.
    QVERIFY(w->primaryPanel()->title()->textToolTip().contains(QStringLiteral("β gate")));
    QVERIFY(!w->comparePanel()->title()->textToolTip().contains(QStringLiteral("β gate")));
    // Asked for anyway, a soft model keeps its expected alpha: its caption does not change.
    auto* strip = w->primaryPanel()->strip();
    const QStringList soft = stripWords(strip);
    w->decoding()->setSampleGlimpses(true);
    QTest::qWait(300);
    QTRY_COMPARE_WITH_TIMEOUT(stripWords(strip), soft, kWait);
    w->setCompareVisible(false);
    QVERIFY(!w->decoding()->glimpseSwitchEnabled());
  }

  void commaAndPeriodStepThroughTheWords() {
    auto w = captioned();
    QApplication::setActiveWindow(w.get());
    QVERIFY(QTest::qWaitForWindowActive(w.get()));
    w->player()->pause();
    w->player()->setCurrent(2);
    QTest::keyClick(w.get(), Qt::Key_Comma);  // one action owns the key: no ambiguous shortcut
    QCOMPARE(w->player()->current(), 1);
    QTest::keyClick(w.get(), Qt::Key_Period);
    QTest::keyClick(w.get(), Qt::Key_Period);
    QCOMPARE(w->player()->current(), 3);
  }

  void softAndHardSideBySideAnimateInStep() {
    auto w = captioned();
    w->loadCompareModel(kHard);
    QVERIFY(!w->comparePanel()->isHidden());
    QTRY_VERIFY_WITH_TIMEOUT(w->comparePanel()->hasCaption() && w->comparePanel()->modelPath() == kHard, kWait);
    w->player()->pause();
    w->player()->setCurrent(1);
    QCOMPARE(w->primaryPanel()->view()->wordIndex(), 1);
    QCOMPARE(w->comparePanel()->view()->wordIndex(), 1);
    QVERIFY(w->comparePanel()->session()->model()->attention == "hard");
  }

  void theComparePanelShowsTheModelAskedFor() {
    // Not the default other model (hard beside soft): the one the user picked, even though its
    // load has not finished when the panel opens.
    auto w = captioned();
    w->loadCompareModel(kPaper);
    QTRY_VERIFY_WITH_TIMEOUT(w->comparePanel()->hasCaption(), kWait);
    QTest::qWait(500);  // a default load queued behind it would have landed by now
    QCOMPARE(w->comparePanel()->modelPath(), kPaper);
    QCOMPARE(w->comparePanel()->session()->model()->attention, QStringLiteral("soft"));

    // A compare model that does not load is named as such, and no other model takes its place.
    auto v = captioned();
    v->loadCompareModel(junkFile("broken-compare.ckpt"));
    QTRY_VERIFY_WITH_TIMEOUT(v->errorText().contains("broken-compare.ckpt"), kWait);
    QVERIFY2(v->errorText().contains(QStringLiteral("the model to compare with")), qPrintable(v->errorText()));
    QTest::qWait(500);
    QVERIFY(!v->comparePanel()->session()->hasModel());
    QVERIFY2(v->comparePanel()->title()->text().contains(QStringLiteral("No model")), qPrintable(v->comparePanel()->title()->text()));
  }

  void aCaptionIsComputedOffTheGuiThread() {
    // The session answers through the event loop: right after the request nothing is there yet.
    ModelSession session;
    session.loadModel(kSoft);
    QSignalSpy ready(&session, &ModelSession::captionReady);
    const quint64 id = session.caption(QImage(kSample), {});
    QCOMPARE(ready.count(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kWait);
    QCOMPARE(ready.at(0).at(0).value<CaptionReply>().id, id);
  }
};

QTEST_MAIN(StudioFilesTest)
#include "test_studio_files.moc"
