// The training window under the offscreen platform: a tiny run started from the New run dialog
// trains (points reach the charts, snapshots reach the gallery), pauses, resumes and cancels at a
// checkpoint that loads; closing the window stops a run at a checkpoint that resumes; past runs
// overlay and their charts export as PNG, SVG and CSV.
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
#include "ui/charts/metric_chart.h"
#include "ui/charts/training_dashboard.h"
#include "ui/training/new_run_dialog.h"
#include "ui/training/run_list.h"
#include "ui/training/sample_gallery.h"
#include "ui/training/thread_priority.h"
#include "ui/training/training_run.h"
#include "ui/training/training_window.h"

using namespace fovea::ui;

namespace {
/// Nice value of this process's thread called `name` (/proc/self/task/*/stat, field 19); -100 when
/// there is no such thread.
int nice_of_thread(const QString& name) {
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
}  // namespace

namespace {

constexpr int kWait = 120000;

/// 32x32 scenes with one object, a 4x4 grid and small layers: steps of a few milliseconds.
fovea::TrainConfig tiny(const QString& out, fovea::AttentionKind kind, std::int64_t max_steps) {
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
void fill_dialog(NewRunDialog* d, const QString& out, std::int64_t max_steps) {
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

std::int64_t checkpoint_step(const QString& run) {
  return fovea::read_checkpoint_header(fovea::last_checkpoint_path(run.toStdString()))["training"]["step"].get<std::int64_t>();
}

QStringList lines_of(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
}

}  // namespace

class TrainingWindowTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  QString runs_;

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(tmp_.isValid());
    runs_ = tmp_.filePath("runs");
    QVERIFY(QDir().mkpath(runs_));
  }

  void theTrainingThreadStepsAsideForTheGuiThread() {
#ifdef __linux__
    TrainingRun run;
    QTRY_COMPARE_WITH_TIMEOUT(nice_of_thread(QStringLiteral("fovea-training")), kTrainingThreadNice, 5000);
    QCOMPARE(current_thread_nice(), 0);  // the GUI thread keeps its priority
#else
    QSKIP("thread priorities are set on Linux only");
#endif
  }

  void aLiveCurveReLaysOutItsStepAxisOnlyWhenItsRangeChanges() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    chart.resize(400, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.addSeries(QStringLiteral("run"), QStringLiteral("run"), Qt::blue, false);
    for (int step = 1; step <= 20; ++step) chart.append(QStringLiteral("run"), step, 5.0 / step);
    chart.redrawNow();
    auto* view = chart.findChild<QChartView*>();
    QVERIFY(view);
    auto axes = view->chart()->axes(Qt::Horizontal);
    QCOMPARE(axes.size(), 1);
    auto* x = qobject_cast<QValueAxis*>(axes[0]);
    QVERIFY(x);
    const double max_before = x->max();
    QVERIFY(max_before >= 20 && max_before < 40);
    // Each of these changes the label format or the range, after which Qt Charts lays the axis
    // and its labels out again: none should happen while new steps stay inside the axis.
    QSignalSpy formats(x, &QValueAxis::labelFormatChanged), ranges(x, &QValueAxis::rangeChanged);
    int step = 21;
    for (; step <= 60 && double(step) * 1.02 < max_before; ++step) {
      chart.append(QStringLiteral("run"), step, 5.0 / step);
      chart.redrawNow();
    }
    QVERIFY(step > 21);  // some steps fitted inside the axis
    QCOMPARE(formats.count(), 0);
    QCOMPARE(ranges.count(), 0);
    chart.append(QStringLiteral("run"), 1000, 0.01);  // beyond the axis: it grows, once
    chart.redrawNow();
    QCOMPARE(ranges.count(), 1);
    QVERIFY(x->max() >= 1000);
  }

  void aRunsNonFiniteStepsAndSpikesAreMarkedOnItsCharts() {
    // A run folder as a rolled-back run leaves it: records, then an event at the checkpoint's step.
    const QString run = tmp_.filePath("events-run");
    QVERIFY(QDir().mkpath(run));
    QFile metrics(run + "/metrics.jsonl");
    QVERIFY(metrics.open(QIODevice::WriteOnly));
    for (int step = 10; step <= 60; step += 10) {
      fovea::TrainRecord r;
      r.step = step;
      r.loss = r.nll = 3.0 - step / 100.0;
      r.lr = step <= 40 ? 1e-2 : 5e-3;
      metrics.write(QByteArray::fromStdString(fovea::to_json(r).dump() + "\n"));
    }
    fovea::TrainEvent rollback;
    rollback.step = 40;
    rollback.failed_step = 47;
    rollback.what = "nonfinite";
    rollback.quantity = "NLL";
    rollback.value = std::nan("");
    rollback.action = "rollback";
    rollback.lr_scale = 0.5;
    rollback.message = "step 47: the NLL is nan; back to the checkpoint of step 40 with the learning rate halved";
    metrics.write(QByteArray::fromStdString(fovea::to_json(rollback).dump() + "\n"));
    metrics.close();

    TrainingDashboard dashboard;
    dashboard.resize(1200, 800);
    dashboard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
    const auto log = fovea::read_run_log(run.toStdString());
    QCOMPARE(log.events.size(), std::size_t(1));
    dashboard.loadRun(log);
    const auto id = QString::fromStdString(log.dir);
    QCOMPARE(dashboard.eventSteps(id), QVector<double>{40});
    for (const char* name : {"loss", "grad_norm", "lr"}) QCOMPARE(dashboard.chart(name)->markerSteps(), QVector<double>{40});
    QVERIFY(dashboard.chart("bleu4")->markerSteps().isEmpty());
    // Drawn where the step is, with the message as its tooltip.
    auto* chart = dashboard.chart("loss");
    chart->redrawNow();
    auto* view = chart->findChild<QChartView*>();
    QVERIFY(view);
    QGraphicsLineItem* marker = nullptr;
    for (auto* item : view->scene()->items()) {
      auto* line = dynamic_cast<QGraphicsLineItem*>(item);
      if (line && line->toolTip().contains("back to the checkpoint of step 40")) marker = line;
    }
    QVERIFY(marker);
    QVERIFY(marker->isVisible());
    QVERIFY(marker->line().length() > 20);  // across the plot

    // A live event adds a marker; reloading the run (after a rollback) shows what the folder holds.
    fovea::TrainEvent spike;
    spike.step = 55;
    spike.what = "loss_spike";
    spike.action = "warn";
    spike.message = "warning: step 55: the loss is over 100 times its running average";
    dashboard.addEvent(id, spike);
    QCOMPARE(dashboard.chart("loss")->markerSteps().size(), 2);
    dashboard.loadRun(log);
    QCOMPARE(dashboard.chart("loss")->markerSteps(), QVector<double>{40});
    dashboard.removeRun(id);
    QVERIFY(dashboard.chart("loss")->markerSteps().isEmpty());
  }

  void overlaidValidationCurvesFitTheAxesAndShowTheirPoints() {
    TrainingDashboard dashboard;
    dashboard.resize(1200, 800);
    dashboard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
    dashboard.addRun("a", "a", false);
    dashboard.addRun("b", "b", false);
    for (auto [id, step, bleu] : {std::tuple{"a", 40, 0.12}, {"a", 80, 0.20}, {"b", 30, 0.55}, {"b", 60, 0.71}}) {
      fovea::ValidationRecord v;
      v.step = step;
      v.bleu[3] = bleu;
      dashboard.addValidationRecord(id, v);
    }
    auto* chart = dashboard.chart("bleu4");
    chart->redrawNow();
    // A past run loaded beside them, with one point above the others, then a live point below all.
    dashboard.addRun("c", "c", false);
    chart->setPoints("c|bleu4", {QPointF(10, 0.95)});
    chart->redrawNow();
    fovea::ValidationRecord low;
    low.step = 120;
    low.bleu[3] = 0.01;
    dashboard.addValidationRecord("a", low);
    chart->redrawNow();
    auto* view = chart->findChild<QChartView*>();
    auto* y = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Vertical).value(0));
    auto* x = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(x && y);
    for (const QString id : {"a", "b", "c"}) {
      for (const auto& p : dashboard.points(id, "bleu4")) {
        QVERIFY2(p.y() > y->min() && p.y() < y->max(), qPrintable(QString("%1 outside [%2, %3]").arg(p.y()).arg(y->min()).arg(y->max())));
        QVERIFY(p.x() >= x->min() && p.x() <= x->max());
      }
    }
    int curves = 0;
    for (auto* series : view->chart()->series()) {
      auto* line = qobject_cast<QLineSeries*>(series);
      if (!line || line->count() == 0) continue;  // the faint raw curves (no smoothing here)
      ++curves;
      QVERIFY(line->pointsVisible());  // curves of a few points show them
    }
    QCOMPARE(curves, 3);
    // Smoothing is for noisy per-step curves: not the scores, not the learning-rate schedule.
    dashboard.setSmoothing(0.6);
    QVERIFY(dashboard.chart("loss")->smoothing() > 0);
    QCOMPARE(dashboard.chart("lr")->smoothing(), 0.0);
    QCOMPARE(dashboard.chart("bleu4")->smoothing(), 0.0);
  }

  void theDashboardReflowsAndShowsOnlyChartsThatApply() {
    TrainingDashboard dashboard;
    dashboard.resize(1100, 800);
    dashboard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
    QCOMPARE(dashboard.shownCharts().size(), dashboard.chartNames().size());  // no run yet: every chart
    QCOMPARE(dashboard.columns(), 3);
    dashboard.addRun("soft", "soft", false);
    QVERIFY(!dashboard.shownCharts().contains("reinforce"));  // REINFORCE needs a hard run
    QVERIFY(!dashboard.shownCharts().contains("reward_var"));
    QVERIFY(!dashboard.shownCharts().contains("pretraining"));  // no pretraining points
    QVERIFY(dashboard.shownCharts().contains("loss"));
    fovea::PretrainRecord p;
    p.pretrain_step = 10;
    p.item_accuracy = 0.5;
    dashboard.addPretrainRecord("soft", p);
    QVERIFY(dashboard.shownCharts().contains("pretraining"));
    dashboard.addRun("hard", "hard", true);
    QVERIFY(dashboard.shownCharts().contains("reinforce"));
    // Narrow: fewer columns, every chart at least its minimum width.
    dashboard.resize(700, 800);
    QTRY_COMPARE(dashboard.columns(), 2);
    for (const auto& name : dashboard.shownCharts()) {
      QVERIFY(dashboard.chart(name)->isVisible());
      QVERIFY(dashboard.chart(name)->width() >= dashboard.chart(name)->minimumSizeHint().width());
    }
    dashboard.resize(360, 800);
    QTRY_COMPARE(dashboard.columns(), 1);
  }

  void theTrainingWindowFitsA1024By700Screen() {
    TrainingWindow w;
    w.setRunsRoot(runs_);
    w.resize(1024, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* scroll = w.findChild<QScrollArea*>();
    QVERIFY(scroll);
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    QVERIFY(w.dashboard()->width() <= scroll->viewport()->width());
    QVERIFY(w.dashboard()->columns() >= 1);
    QVERIFY2(w.gallery()->width() <= w.width() / 4, qPrintable(QString::number(w.gallery()->width())));
  }

  void theCrosshairReadOutGoesWhenTheMouseLeaves() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    chart.resize(400, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.addSeries(QStringLiteral("run"), QStringLiteral("run"), Qt::blue, false);
    for (int step = 1; step <= 20; ++step) chart.append(QStringLiteral("run"), step, 5.0 / step);
    chart.redrawNow();
    auto* view = chart.findChild<QChartView*>();
    QVERIFY(view);
    QSignalSpy hovered(&chart, &MetricChart::hovered);
    const QPointF middle(view->viewport()->width() / 2.0, view->viewport()->height() / 2.0);
    QMouseEvent move(QEvent::MouseMove, middle, view->viewport()->mapToGlobal(middle), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(view->viewport(), &move);
    auto* readout = view->viewport()->findChild<QLabel*>();
    QVERIFY(readout);
    QVERIFY(readout->isVisible());
    QVERIFY(!hovered.isEmpty() && !hovered.last().at(0).toString().isEmpty());
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(view->viewport(), &leave);
    QVERIFY(!readout->isVisible());
    QVERIFY(hovered.last().at(0).toString().isEmpty());  // the status bar's read-out is cleared too
  }

  void aSteadilyFallingCurveMovesItsAxesAboutTwicePerDoubling() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    chart.resize(400, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.addSeries(QStringLiteral("run"), QStringLiteral("run"), Qt::blue, false);
    auto* view = chart.findChild<QChartView*>();
    QVERIFY(view);
    auto* x = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Horizontal).value(0));
    auto* y = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Vertical).value(0));
    QVERIFY(x && y);
    QSignalSpy x_moves(x, &QValueAxis::rangeChanged), y_moves(y, &QValueAxis::rangeChanged);
    double lowest = 1e9;
    for (int step = 1; step <= 2000; ++step) {  // eleven doublings of the step axis
      const double loss = 5.0 / std::sqrt(double(step)) + 0.2;
      lowest = std::min(lowest, loss);
      chart.append(QStringLiteral("run"), step, loss);
      chart.redrawNow();
      // Every point stays in view, and the step axis is never mostly empty.
      QVERIFY2(x->min() <= 1 && x->max() >= step, qPrintable(QString::number(step)));
      QVERIFY2(step >= 0.4 * (x->max() - x->min()), qPrintable(QString::number(x->max())));
      QVERIFY(y->min() <= lowest && y->max() >= 5.2);
    }
    // Snapped to round numbers alone, the axes moved 40 and 9 times (Qt Charts re-lays out an axis
    // and its labels at each move): with headroom on the side the curve grows, about half as often.
    QVERIFY2(x_moves.count() <= 24, qPrintable(QString::number(x_moves.count())));
    QVERIFY2(y_moves.count() <= 6, qPrintable(QString::number(y_moves.count())));
  }

  void aCurveAddedToAChartThatAlreadySmoothsIsSmoothed() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    chart.resize(400, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setSmoothing(0.9);  // the slider moved before this run was opened
    for (const QString& run : {QStringLiteral("live"), QStringLiteral("past")}) chart.addSeries(run, run, Qt::blue, false);
    QVector<QPointF> zigzag;
    for (int step = 1; step <= 200; ++step) {
      zigzag.append({double(step), step % 2 ? 3.0 : 1.0});
      chart.append(QStringLiteral("live"), step, zigzag.back().y());
    }
    chart.setPoints(QStringLiteral("past"), zigzag);
    chart.redrawNow();
    for (const QString& run : {QStringLiteral("live"), QStringLiteral("past")}) {
      const auto drawn = chart.displayedPoints(run);
      QVERIFY(!drawn.isEmpty());
      // Smoothed with weight 0.9, the zigzag between 1 and 3 settles within 0.2 of its mean.
      for (const QPointF& p : drawn)
        if (p.x() > 50) QVERIFY2(std::abs(p.y() - 2.0) < 0.2, qPrintable(run + QString(": %1 at %2").arg(p.y()).arg(p.x())));
    }
  }

  void aFinishedRunsCurvesFillTheirAxes() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    chart.resize(400, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.addSeries(QStringLiteral("run"), QStringLiteral("run"), Qt::blue, false);
    auto* x = qobject_cast<QValueAxis*>(chart.findChild<QChartView*>()->chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(x);
    for (int steps : {1200, 12000}) {  // a whole curve at once, as a finished run loads: no headroom
      QVector<QPointF> points;
      for (int step = 1; step <= steps; ++step) points.append({double(step), 5.0 / std::sqrt(double(step))});
      chart.setPoints(QStringLiteral("run"), points);
      chart.redrawNow();
      QVERIFY2(x->max() >= steps && x->max() <= 1.2 * steps, qPrintable(QString::number(x->max())));
    }
  }

  void theNewRunDialogShowsThePlanDisablesWhatDoesNotApplyAndIgnoresEnter() {
    QSettings().remove("training/last_config");
    NewRunDialog d(runs_);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    // The recipe: captioning steps from the shipped pretrained encoder, before Start.
    QVERIFY2(d.planText().contains("2500 captioning steps (4 epochs of 625)") && !d.planText().contains("pretraining"),
             qPrintable(d.planText()));
    QVERIFY2(d.encoderText().contains("pretrained") && d.encoderText().contains("fashion-encoder.pt"),
             qPrintable(d.encoderText()));
    QVERIFY(!d.findChild<QWidget*>("encoder-widths")->isEnabled());  // the encoder file's blocks
    QVERIFY(d.findChild<QWidget*>("trainable-blocks")->isEnabled());
    QVERIFY2(d.encoderText().contains("first 3 of 8 blocks keep their weights"), qPrintable(d.encoderText()));
    // What does not apply is disabled.
    QVERIFY(d.setValue("attention", "soft"));
    QVERIFY(!d.findChild<QWidget*>("lambda-r")->isEnabled());
    QVERIFY(d.findChild<QWidget*>("beta")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("images")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("finetune-backbone")->isEnabled());  // an encoder file's CNN always trains
    QVERIFY(d.findChild<QWidget*>("pretrain-steps")->isEnabled());
    QVERIFY(d.setValue("dataset", "karpathy:data/dataset_flickr8k.json"));
    QVERIFY(d.findChild<QWidget*>("images")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("pretrain-steps")->isEnabled());  // pretraining needs the built-in scenes
    QVERIFY(d.setValue("dataset", "fashion-scenes"));
    QVERIFY(d.setValue("backbone", "resnet.pt"));
    QVERIFY(d.findChild<QWidget*>("finetune-backbone")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("trainable-blocks")->isEnabled());  // a TorchScript CNN has no blocks to count
    QVERIFY(!d.findChild<QWidget*>("encoder-widths")->isEnabled());
    QVERIFY2(d.encoderText().contains("resnet.pt: file not found"), qPrintable(d.encoderText()));
    QVERIFY(d.setValue("backbone", ""));
    QVERIFY2(d.encoderText().contains("untrained"), qPrintable(d.encoderText()));
    QVERIFY(!d.findChild<QWidget*>("finetune-backbone")->isEnabled());
    QVERIFY(d.findChild<QWidget*>("encoder-widths")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("trainable-blocks")->isEnabled());  // an untrained CNN trains every block
    QVERIFY(!d.encoderText().contains("keep their weights"));
    QVERIFY(d.setValue("pretrain-steps", 14000));
    QVERIFY(d.findChild<QWidget*>("trainable-blocks")->isEnabled());  // pretrained in the run, then partly frozen
    QVERIFY2(d.planText().contains("14000 pretraining + 2500 captioning steps (4 epochs of 625)"), qPrintable(d.planText()));
    // Quick test: a few hundred steps.
    auto* quick = [&] {
      for (auto* b : d.findChildren<QPushButton*>()) {
        if (b->text() == "Quick test") return b;
      }
      return static_cast<QPushButton*>(nullptr);
    }();
    QVERIFY(quick);
    quick->click();
    QVERIFY2(d.planText().contains("100 pretraining + 200 captioning steps (2 epochs of 100)"), qPrintable(d.planText()));
    // Enter in a field does not start the run.
    auto* lr = d.findChild<QLineEdit*>("lr");
    QVERIFY(lr);
    lr->setFocus();
    QTest::keyClick(lr, Qt::Key_Return);
    QVERIFY(d.isVisible());
    QCOMPARE(d.result(), int(QDialog::Rejected));
    // Accepted settings come back in the next dialog (in a new folder).
    QVERIFY(d.setValue("out", runs_ + "/remembered"));
    QVERIFY(d.setValue("lr", "0.0042"));
    d.findChild<QPushButton*>("start")->click();
    QCOMPARE(d.result(), int(QDialog::Accepted));
    NewRunDialog next(runs_);
    QCOMPARE(next.config().lr, 0.0042);
    QCOMPARE(next.config().max_steps, std::int64_t(300));
    QVERIFY(next.value("out").toString() != runs_ + "/remembered");
    QSettings().remove("training/last_config");
  }

  void aSecondRunIsQueuedAndStartsWhenTheFirstEnds() {
    TrainingWindow w;
    w.setConfirmClose(false);
    w.setRunsRoot(runs_);
    const QString first = runs_ + "/queue-first", second = runs_ + "/queue-second";
    QVERIFY(w.startRun(tiny(first, fovea::AttentionKind::Soft, 40)));
    QVERIFY(w.training()->isRunning());
    QVERIFY(w.startRun(tiny(second, fovea::AttentionKind::Soft, 20)));
    QCOMPARE(w.queuedRuns(), 1);
    QVERIFY(w.logText().contains("Queued"));
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(QString::fromStdString(fovea::model_card_path(second.toStdString()))), kWait);
    QVERIFY(QFileInfo::exists(QString::fromStdString(fovea::model_card_path(first.toStdString()))));
    QCOMPARE(w.queuedRuns(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
  }

  void aRunStartedFromTheDialogTrainsPausesResumesAndCancels() {
    TrainingWindow w;
    w.setConfirmClose(false);
    w.setRunsRoot(runs_);
    w.show();
    const QString out = runs_ + "/from-dialog";
    bool filled = false;
    QTimer::singleShot(0, &w, [&] {
      auto* d = qobject_cast<NewRunDialog*>(QApplication::activeModalWidget());
      QVERIFY(d);
      // One field per training setting: the dialog, the config's JSON (and the CLI, checked in
      // cli_end_to_end.sh) carry the same keys.
      QStringList json_keys;
      const auto j = fovea::to_json(fovea::recommended_train_config());
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() != "version") json_keys << QString::fromStdString(it.key());
      }
      auto dialog_keys = d->settingKeys();
      dialog_keys.sort();
      json_keys.sort();
      QCOMPARE(dialog_keys, json_keys);
      fill_dialog(d, out, 100000);
      filled = true;
      d->findChild<QPushButton*>("start")->click();
    });
    QVERIFY(w.newRun());
    QVERIFY(filled);
    QVERIFY(w.training()->isRunning());

    // Points reach the charts, snapshots reach the gallery.
    auto* dash = w.dashboard();
    QTRY_VERIFY_WITH_TIMEOUT(dash->pointCount(out, "nll") >= 3, kWait);
    QCOMPARE(dash->pointCount(out, "item_accuracy"), 2);  // encoder pretraining first: steps 10, 20
    QCOMPARE(dash->pointCount(out, "held_out_accuracy"), 1);  // and its held-out items, scored at the end
    QTRY_VERIFY_WITH_TIMEOUT(w.gallery()->snapshotCount() >= 2, kWait);
    QCOMPARE(w.gallery()->captions().size(), 4);
    QVERIFY(dash->pointCount(out, "penalty") >= 3);
    QVERIFY(dash->pointCount(out, "entropy") >= 3);
    QCOMPARE(dash->pointCount(out, "reward"), 0);  // soft: no REINFORCE curves
    QVERIFY(w.runList()->runs().contains(out));
    // The run list's line follows the live run (its log on disk lags behind it).
    QTRY_VERIFY_WITH_TIMEOUT(w.runList()->summary(out).contains(QRegularExpression("soft · step [1-9]\\d*( · BLEU-4 [0-9.]+)? · ● training")), kWait);

    // Pause: the step stops moving and a checkpoint holds it.
    w.setPaused(true);
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().paused, kWait);
    const auto paused_at = w.lastProgress().step;
    QTest::qWait(600);
    QCOMPARE(w.lastProgress().step, paused_at);
    QCOMPARE(checkpoint_step(out), paused_at);
    QVERIFY(w.statusText().contains("Paused"));
    QTRY_VERIFY_WITH_TIMEOUT(w.runList()->summary(out).contains("paused"), kWait);  // not "● training"

    // Resume: it moves on.
    w.setPaused(false);
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().step > paused_at + 5, kWait);

    // Cancel: it stops at a checkpoint that loads and captions.
    w.cancelRun();
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
    QVERIFY(w.logText().contains("Stopped at step"));
    QTRY_VERIFY2(w.runList()->summary(out).contains("interrupted"), qPrintable(w.runList()->summary(out)));
    const auto stopped_at = checkpoint_step(out);
    QVERIFY(stopped_at > paused_at + 5);
    // The list, the status bar and the checkpoint agree on the step (not the last logged one).
    QVERIFY2(w.runList()->summary(out).contains(QString("step %1 ").arg(stopped_at)), qPrintable(w.runList()->summary(out)));
    QVERIFY2(w.statusText().contains(QString::number(stopped_at)), qPrintable(w.statusText()));
    fovea::Captioner captioner(fovea::last_checkpoint_path(out.toStdString()));
    fovea::RgbImage image(32, 32);
    QVERIFY(captioner.caption(image).grid_h == 4);

    // Resume it from the run list: it continues from its checkpoint, the curve stays one curve.
    w.runList()->setCurrentRun(out);
    QVERIFY(w.resumeRun(out));
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().step > stopped_at, kWait);
    QTRY_VERIFY_WITH_TIMEOUT(dash->points(out, "nll").last().x() > double(stopped_at), kWait);
    w.cancelRun();
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
    const auto nll = dash->points(out, "nll");
    for (int i = 1; i < nll.size(); ++i) QVERIFY2(nll[i].x() > nll[i - 1].x(), "steps increase along the curve");
  }

  void folderInTheRunListIsTheRootNewRunsGoTo() {
    const QString other = tmp_.filePath("other-runs");
    QVERIFY(QDir().mkpath(other));
    TrainingWindow w;
    w.setRunsRoot(runs_);
    auto* list = w.runList();
    Q_EMIT list->rootChosen(other);  // what Folder… does once a folder is picked
    QCOMPARE(w.runsRoot(), QDir(other).absolutePath());
    QCOMPARE(list->root(), QDir(other).absolutePath());
    QCOMPARE(QSettings().value("training/runs_root").toString(), QDir(other).absolutePath());
    TrainingWindow next;  // remembered for the next window
    QCOMPARE(next.runsRoot(), QDir(other).absolutePath());
    w.setRunsRoot(runs_);
  }

#ifdef FOVEA_BIN
  void aRunOfTwoProcessesIsOneRunOnTheDashboards() {
    // Settings only (what `fovea train` options can give the second process), fp32.
    auto c = fovea::recommended_train_config();
    const std::vector<std::pair<const char*, const char*>> settings{
        {"image_size", "32"}, {"encoder_widths", "8,16,32"}, {"embed_dim", "16"}, {"attention_dim", "16"},
        {"hidden_dim", "48"}, {"dropout", "0"}, {"train_scenes", "32"}, {"val_scenes", "8"}, {"batch", "16"},
        {"lr", "0.01"}, {"lr_decay", "1"}, {"epochs", "1000"}, {"patience", "1000"}, {"max_steps", "20"},
        {"pretrain_steps", "0"}, {"backbone", "none"}, {"device", "cpu"},
        {"precision", "fp32"}};
    for (const auto& [key, value] : settings) {
      const auto& s = fovea::train_setting(key);
      s.set(c, fovea::parse_setting(s, value));
    }
    const QString out = runs_ + "/two-processes";
    c.out_dir = out.toStdString();

    NewRunDialog dialog(runs_);
    auto* field = dialog.findChild<QSpinBox*>("processes");
    QVERIFY(field != nullptr);
    QCOMPARE(dialog.processes(), 1);
    dialog.setProcesses(2);
    QCOMPARE(field->value(), 2);

    TrainingWindow w;
    w.setConfirmClose(false);
    w.setRunsRoot(runs_);
    w.training()->setToolProgram(FOVEA_BIN);
    QVERIFY(w.startRun(c, 2));
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
    QVERIFY2(w.logText().contains("2 processes, 8 images each a step"), qPrintable(w.logText()));
    QVERIFY2(!w.logText().contains("error"), qPrintable(w.logText()));
    QCOMPARE(w.dashboard()->pointCount(out, "nll"), 3);  // steps 1, 10, 20, once
    const auto log = fovea::read_run_log(out.toStdString());
    QCOMPARE(int(log.train.size()), 3);
    QCOMPARE(checkpoint_step(out), 20);
    QVERIFY(w.close());
  }
#endif

  void closingTheWindowStopsTheRunAtACheckpoint() {
    const QString out = runs_ + "/closed";
    {
      TrainingWindow w;
      w.setConfirmClose(false);
      w.setRunsRoot(runs_);
      w.show();
      QVERIFY(w.startRun(tiny(out, fovea::AttentionKind::Hard, 100000)));
      QTRY_VERIFY_WITH_TIMEOUT(w.dashboard()->pointCount(out, "reward") >= 3, kWait);
      QSignalSpy closed(&w, &TrainingWindow::closedAfterStop);
      // close() returns at once (the GUI thread never waits for the run): the window hides, and the
      // run, still stopping, ends through the event loop, which then closes the window.
      QVERIFY(!w.close());
      QVERIFY(w.isHidden());
      QVERIFY(w.training()->isRunning());
      QVERIFY(w.isStoppingToClose());
      QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
      QCOMPARE(closed.count(), 1);
      QVERIFY(!w.isStoppingToClose());
    }
    const auto step = checkpoint_step(out);
    QVERIFY(step > 0);
    // A new window resumes it from its folder.
    TrainingWindow w2;
    w2.setConfirmClose(false);
    w2.setRunsRoot(runs_);
    QVERIFY(w2.runList()->runs().contains(out));
    QTRY_VERIFY(w2.runList()->summary(out).contains("interrupted"));  // read on a worker thread
    QVERIFY(w2.resumeRun(out));
    QTRY_VERIFY_WITH_TIMEOUT(w2.lastProgress().step > step, kWait);
    QVERIFY(w2.dashboard()->pointCount(out, "baseline") >= 3);  // the curve before the stop came back from disk
    QVERIFY(!w2.close());  // still training: it hides, stops, then closes
    QTRY_VERIFY_WITH_TIMEOUT(!w2.training()->isRunning() && !w2.isStoppingToClose(), kWait);
  }

  void pastRunsOverlayAndExport() {
    const QString a = runs_ + "/past-soft", b = runs_ + "/past-hard";
    auto with_pretraining = tiny(a, fovea::AttentionKind::Soft, 60);  // 20 pretraining steps, 40 captioning
    with_pretraining.pretrain_steps = 20;
    fovea::train(with_pretraining);
    fovea::train(tiny(b, fovea::AttentionKind::Hard, 40));
    // A crash mid-write leaves half a line: skipped, the rest reads.
    QFile metrics(QString::fromStdString(fovea::metrics_path(a.toStdString())));
    QVERIFY(metrics.open(QIODevice::Append));
    metrics.write("{\"kind\": \"train\", \"ste");
    metrics.close();

    TrainingWindow w;
    w.setRunsRoot(runs_);
    QVERIFY(w.openRun(a));
    QVERIFY(w.openRun(b));
    QVERIFY(w.logText().contains("skipped 1"));
    auto* dash = w.dashboard();
    QCOMPARE(dash->pointCount(a, "nll"), 5);  // steps 1, 10, 20, 30, 40
    QCOMPARE(dash->pointCount(b, "nll"), 5);
    QCOMPARE(dash->pointCount(a, "reward"), 0);
    QCOMPARE(dash->pointCount(b, "reward"), 5);
    QCOMPARE(dash->pointCount(a, "item_accuracy"), 2);  // pretraining steps 10, 20
    QCOMPARE(dash->pointCount(b, "item_accuracy"), 0);
    QCOMPARE(dash->pointCount(a, "held_out_accuracy"), 1);
    QVERIFY(dash->pointCount(a, "bleu4") >= 1);
    QCOMPARE(dash->chart("loss")->seriesKeys().size(), 2);
    QVERIFY(w.runList()->checkedRuns().contains(a) && w.runList()->checkedRuns().contains(b));
    QVERIFY(w.gallery()->snapshotCount() == 1);  // step 0 of the last opened run (then every 100 steps)

    // Unticking a run removes its curves; ticked again it comes back in its colour.
    const QColor colour_a = dash->runColour(a);
    QVERIFY(colour_a != dash->runColour(b));
    w.runList()->setChecked(a, false);
    QCOMPARE(dash->chart("loss")->seriesKeys().size(), 1);
    w.runList()->setChecked(a, true);
    QTRY_COMPARE(dash->chart("loss")->seriesKeys().size(), 2);  // read on a thread of its own
    QCOMPARE(dash->runColour(a), colour_a);

    const QString dir = tmp_.filePath("charts");
    const auto files = w.exportCharts(dir);
    QCOMPARE(files.size(), 3 * dash->chartNames().size());
    QVERIFY(!QImage(dir + "/loss.png").isNull());
    QVERIFY(QSvgRenderer(dir + "/loss.svg").isValid());
    const auto csv = lines_of(dir + "/loss.csv");
    QCOMPARE(csv.value(0), QString("series,step,value"));
    QCOMPARE(csv.size(), 1 + 5 + 5);
    QCOMPARE(csv.filter(QRegularExpression("^past-soft,")).size(), 5);
    QCOMPARE(csv.filter(QRegularExpression("^past-hard,")).size(), 5);
    const auto first = csv.value(1).split(',');
    QCOMPARE(first.value(1).toInt(), 1);
    QVERIFY(first.value(2).toDouble() > 0);
    const auto pretraining = lines_of(dir + "/pretraining.csv");
    QCOMPARE(pretraining.value(0), QString("series,pretraining step,value"));
    QCOMPARE(pretraining.size(), 1 + 2 + 1);  // the held-out items' dot too
  }

  void aBadRunFolderIsExplained() {
    TrainingWindow w;
    QVERIFY(!w.openRun(tmp_.filePath("nothing-here")));
    QVERIFY(w.statusText().contains("nothing-here"));
    QVERIFY(w.statusText().contains("metrics.jsonl"));
  }
};

QTEST_MAIN(TrainingWindowTest)
#include "test_training_window.moc"
