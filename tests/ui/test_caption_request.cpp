// A caption request from the studio's controls. Every caption setting of the table
// (core/decode/caption_settings.h) is either a control whose change reaches the decoder's options
// (the panels', the live source's and the video export's, all from DecodingControls::captionOptions),
// or one the studio takes elsewhere; a setting added to the table fails here until the studio says
// which it is.
#include <QCheckBox>
#include <QSpinBox>
#include <QToolBar>
#include <QtTest>

#include "core/decode/caption_settings.h"
#include "ui/explorer/decoding_controls.h"
#include "ui/explorer/live_source.h"
#include "ui/explorer/main_window.h"

using namespace fovea::ui;

namespace {

QCheckBox* check_box(QObject* in, const QString& text) {
  for (auto* box : in->findChildren<QCheckBox*>())
    if (box->text() == text) return box;
  return nullptr;
}

}  // namespace

class CaptionRequestTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void everyCaptionSettingIsAControlOrTakenElsewhere() {
    const QStringList controls = {"beam", "greedy", "sample_glimpses"};
    // The model and the device are each panel's (File ▸ Load Model; the studio captions on the
    // CPU); a caption's length, the draw's seed and a video's frame step are the commands' only.
    const QStringList elsewhere = {"model", "device", "max_len", "seed", "every"};
    for (const auto& s : fovea::caption_settings()) {
      const QString key = QString::fromUtf8(s.key);
      QVERIFY2(controls.contains(key) || elsewhere.contains(key),
               qPrintable(key + ": neither a control of the studio nor a setting it takes elsewhere"));
    }
  }

  void eachControlReachesTheDecodersOptions() {
    QToolBar bar;
    DecodingControls controls(&bar);
    fovea::CaptionOptions last;
    int changes = 0;
    connect(&controls, &DecodingControls::captionOptionsChanged, this, [&](const fovea::CaptionOptions& o) {
      last = o;
      ++changes;
    });
    auto* beam = bar.findChild<QSpinBox*>("beam");
    QVERIFY(beam != nullptr);
    beam->setValue(5);
    QCOMPARE(changes, 1);
    QCOMPARE(last.beam, 5);
    check_box(&bar, "greedy")->setChecked(true);  // greedy is beam 1, whatever the width says
    QCOMPARE(last.beam, 1);
    QVERIFY(!beam->isEnabled());
    check_box(&bar, "greedy")->setChecked(false);
    QCOMPARE(last.beam, 5);
    QVERIFY(!last.sample_glimpses);
    controls.setHardAttentionShown(true);
    check_box(&bar, "sampled glimpses")->setChecked(true);
    QVERIFY(last.sample_glimpses);
    QCOMPARE(last.beam, 5);  // one change does not undo another
    QCOMPARE(controls.captionOptions().beam, last.beam);
    QCOMPARE(controls.captionOptions().sample_glimpses, last.sample_glimpses);
    QVERIFY(!last.seed.has_value());  // a fresh draw each time
    QCOMPARE(last.max_len, 0);        // the model's limit
  }

  void theWindowsControlsReachTheLiveSource() {
    MainWindow w;
    auto* beam = w.findChild<QSpinBox*>("beam");
    beam->setValue(7);
    QCOMPARE(w.liveSource()->captionOptions().beam, 7);
    w.decoding()->setBeam(1);
    QCOMPARE(w.liveSource()->captionOptions().beam, 1);
    w.decoding()->setBeam(4);
    QCOMPARE(w.liveSource()->captionOptions().beam, 4);
    w.decoding()->setHardAttentionShown(true);  // as when a hard model is shown
    w.decoding()->setSampleGlimpses(true);
    QVERIFY(w.liveSource()->captionOptions().sample_glimpses);
    QCOMPARE(w.decoding()->captionOptions().beam, 4);  // what a video export captions with
    QVERIFY(w.decoding()->captionOptions().sample_glimpses);
  }
};

QTEST_MAIN(CaptionRequestTest)
#include "test_caption_request.moc"
