#pragma once
// Shared by fovea-studio's explorer tests: what studio_test_basics.h has, the widgets they reach
// into, and a window showing the sample's caption.
#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QSettings>
#include <QtTest>
#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/decoding_controls.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/live_controls.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/model_session.h"
#include "ui/explorer/panel_notes.h"
#include "ui/explorer/probe_line.h"
#include "ui/explorer/remembered_model.h"
#include "ui/explorer/studio_exports.h"
#include "ui/explorer/studio_menus.h"
#include "ui/explorer/take_away_line.h"
#include "ui/explorer/thumbnail_strip.h"
#include "ui/common/word_player.h"
#include "core/decode/caption_settings.h"
#include <QCheckBox>
#include <QComboBox>
#include <QSlider>
#include <QDoubleSpinBox>
#include <QSpinBox>

#include "ui/export/figure_export_dialog.h"
#include "tests/ui/studio_test_basics.h"

#include <memory>

using namespace fovea::ui;

namespace fovea::test_ui {
inline QStringList stripWords(const CaptionStrip* strip) {
  QStringList l;
  for (int i = 0; i < strip->count(); ++i) l << strip->word(i);
  return l;
}

inline int count(const QByteArray& text, const QByteArray& what) {
  int n = 0;
  for (qsizetype p = text.indexOf(what); p >= 0; p = text.indexOf(what, p + 1)) ++n;
  return n;
}

/// QSettings and QStandardPaths in test mode (the user's own are left alone); whether the shipped
/// soft model and the test's temporary folder `tmp` are there.
inline bool readyToTest(const QTemporaryDir& tmp) {
  QStandardPaths::setTestModeEnabled(true);
  return QFile::exists(kSoft) && tmp.isValid();
}

/// A window with the soft model and the sample image, captioned.
inline std::unique_ptr<MainWindow> captioned(const QString& image = kSample) {
  auto w = std::make_unique<MainWindow>();
  w->loadModel(kSoft);
  w->show();
  if (!w->openImage(image)) return w;
  [&] { QTRY_VERIFY_WITH_TIMEOUT(w->primaryPanel()->strip()->count() > 0, kWait); }();
  return w;
}

}  // namespace fovea::test_ui
