#pragma once
// Shared by fovea-studio's UI tests: the shipped models and sample scene they open, how long they
// wait for a caption, and an explorer window showing the sample's caption at a given size.
#include <QCoreApplication>
#include <QImage>
#include <QSize>
#include <QString>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

#include "ui/common/word_player.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/model_session.h"

namespace fovea::test_ui {
inline const QString kSource = QStringLiteral(FOVEA_SOURCE_DIR);
inline const QString kSoft = kSource + "/models/fashion-soft.ckpt";
inline const QString kHard = kSource + "/models/fashion-hard.ckpt";
inline const QString kPaper = kSource + "/models/fashion-soft-paper.ckpt";
inline const QString kSamples = kSource + "/resources/samples";
inline const QString kSample = kSamples + "/test_00001.png";
constexpr int kWait = 60000;

/// Whether `p` shows a caption and is not working on another.
inline bool ready(const fovea::ui::ExplorerPanel* p) {
  return p->hasCaption() && !p->session()->isBusy() && p->strip()->count() > 0;
}

/// Lets pending layout requests run (a layout change is posted, not immediate).
inline void settle(int rounds = 3) {
  for (int i = 0; i < rounds; ++i) QCoreApplication::processEvents();
}

/// A window of `size` with the soft model (and the hard one compared, with `compare`) showing
/// the sample's caption, the player paused.
inline std::unique_ptr<fovea::ui::MainWindow> sampleWindow(bool compare, QSize size) {
  auto w = std::make_unique<fovea::ui::MainWindow>();
  w->loadModel(kSoft);
  if (compare) w->loadCompareModel(kHard);
  w->resize(size);
  w->show();
  [&] {
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    QVERIFY(w->openImage(kSample));
    QTRY_VERIFY_WITH_TIMEOUT(ready(w->primaryPanel()) && (!compare || ready(w->comparePanel())), kWait);
  }();
  w->player()->pause();
  return w;
}

/// An image of noise, unlike any scene the models learned from, saved in `dir`: its path, or
/// empty where it could not be written.
inline QString savedNoise(const QTemporaryDir& dir) {
  QImage noise(300, 200, QImage::Format_RGB32);
  quint32 state = 12345;
  for (int y = 0; y < noise.height(); ++y)
    for (int x = 0; x < noise.width(); ++x) {
      state = state * 1664525u + 1013904223u;
      noise.setPixel(x, y, 0xff000000u | (state >> 8));
    }
  const QString path = dir.filePath("noise.png");
  return noise.save(path) ? path : QString();
}

}  // namespace fovea::test_ui
