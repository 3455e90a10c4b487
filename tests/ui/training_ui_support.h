#pragma once
// Shared by the training window's UI tests: a tiny run's settings, the dialog filled in as a user
// would, and small readers of a run folder.
#include <QApplication>
#include <QFile>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTimer>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <cmath>
#include <tuple>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/decode/captioner.h"
#include "core/io/checkpoint_header.h"
#include "core/train/run_log.h"
#include "core/train/train_settings.h"
#include "core/train/trainer.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/chart_markers.h"
#include "ui/charts/metric_chart.h"
#include "ui/charts/training_dashboard.h"
#include "ui/training/new_run_dialog.h"
#include "ui/training/run_list.h"
#include "ui/training/sample_gallery.h"
#include "ui/training/thread_priority.h"
#include "ui/training/training_run.h"
#include "ui/training/training_window.h"


using namespace fovea::ui;

namespace fovea::test_ui {
/// QSettings and QStandardPaths in test mode, and an empty folder runs/ in `tmp` for a test's
/// runs: its path, or empty where it could not be made.
inline QString make_runs_folder(const QTemporaryDir& tmp) {
  QStandardPaths::setTestModeEnabled(true);
  const QString runs = tmp.filePath("runs");
  return tmp.isValid() && QDir().mkpath(runs) ? runs : QString();
}

/// Nice value of this process's thread called `name` (/proc/self/task/*/stat, field 19); -100 when
/// there is no such thread.
inline int nice_of_thread(const QString& name) {
  for (const QString& tid : QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    QFile comm(QStringLiteral("/proc/self/task/%1/comm").arg(tid)), stat(QStringLiteral("/proc/self/task/%1/stat").arg(tid));
    if (!comm.open(QIODevice::ReadOnly) || QString::fromUtf8(comm.readAll()).trimmed() != name) continue;
    if (!stat.open(QIODevice::ReadOnly)) continue;
    const QByteArray line = stat.readAll();
    const auto fields = line.mid(line.lastIndexOf(')') + 2).split(' ');  // from field 3 (state) on
    return fields.size() > 16 ? fields[16].toInt() : -100;
  }
  return -100;
}
}  // namespace fovea::test_ui

namespace fovea::test_ui {

constexpr int kWait = 120000;

/// 32x32 scenes with one object, a 4x4 grid and small layers: steps of a few milliseconds.
inline fovea::TrainConfig tiny(const QString& out, fovea::AttentionKind kind, std::int64_t max_steps) {
  auto c = fovea::recommended_train_config();
  c.model.attention = kind;
  c.model.image_size = 32;
  c.model.encoder_widths = {8, 16, 32};
  c.model.encoder_strides = {2, 2, 2};
  c.model.embed_dim = 16;
  c.model.attention_dim = 16;
  c.model.hidden_dim = 48;
  c.model.dropout = 0;
  c.model.max_caption_len = 12;
  c.scenes.image_size = 32;
  c.scenes.min_objects = c.scenes.max_objects = 1;
  c.train_scenes = 32;
  c.val_scenes = 16;
  c.batch_size = 16;
  c.lr = 1e-2;
  c.lr_decay = 1;
  c.epochs = 100000;
  c.max_steps = max_steps;
  c.pretrain_steps = 0;
  c.backbone.clear();  // the tiny CNN, untrained
  c.patience = 100000;
  c.device = "cpu";
  c.precision = "fp32";  // the same numerics on every CPU
  c.out_dir = out.toStdString();
  return c;
}

/// Fills the dialog the way a user would, field by field, with the tiny settings.
inline void fill_dialog(NewRunDialog* d, const QString& out, std::int64_t max_steps) {
  const auto c = tiny(out, fovea::AttentionKind::Soft, max_steps);
  QVERIFY(d->setValue("out", out));
  QVERIFY(d->setValue("attention", "soft"));
  QVERIFY(d->setValue("image-size", 32));
  QVERIFY(d->setValue("backbone", ""));  // the tiny CNN from scratch, not the shipped encoder
  QVERIFY(d->findChild<QWidget*>("encoder-widths")->isEnabled());
  QVERIFY(d->setValue("encoder-widths", "8,16,32"));
  QVERIFY(d->setValue("embed-dim", 16));
  QVERIFY(d->setValue("attention-dim", 16));
  QVERIFY(d->setValue("hidden-dim", 48));
  QVERIFY(d->setValue("dropout", "0"));
  QVERIFY(d->setValue("train-scenes", 32));
  QVERIFY(d->setValue("val-scenes", 16));
  QVERIFY(d->setValue("batch", 16));
  QVERIFY(d->setValue("lr", "0.01"));
  QVERIFY(d->setValue("lr-decay", "1"));
  QVERIFY(d->setValue("epochs", 100000));
  QVERIFY(d->setValue("max-steps", int(max_steps)));
  QVERIFY(d->setValue("patience", 1000));
  QVERIFY(d->setValue("pretrain-steps", 20));
  QVERIFY(d->setValue("device", "cpu"));
  QVERIFY(d->setValue("precision", "fp32"));
  QVERIFY(!d->setValue("threads", 1));  // not a setting: OMP_NUM_THREADS
  const auto got = d->config();
  QCOMPARE(got.model.encoder_widths, c.model.encoder_widths);
  QVERIFY(got.model.encoder_strides.empty());  // the default's eight strides do not fit three blocks: the first three halve
  QCOMPARE(got.scenes.image_size, 32);
  QCOMPARE(got.max_steps, max_steps);
  QCOMPARE(got.pretrain_steps, std::int64_t(20));
  QCOMPARE(got.lr, 0.01);
}

inline std::int64_t checkpoint_step(const QString& run) {
  return fovea::read_checkpoint_header(fovea::last_checkpoint_path(run.toStdString()))["training"]["step"].get<std::int64_t>();
}

/// `chart` at 400x300 on screen, with a blue unsmoothed series `series` when one is named.
inline bool showChart(MetricChart& chart, const QString& series = {}) {
  chart.resize(400, 300);
  chart.show();
  if (!QTest::qWaitForWindowExposed(&chart)) return false;
  if (!series.isEmpty()) chart.addSeries(series, series, Qt::blue, false);
  return true;
}

inline QStringList lines_of(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
}

}  // namespace fovea::test_ui

