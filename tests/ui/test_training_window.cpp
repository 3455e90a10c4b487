// The training window's charts and dashboards under the offscreen platform: live curves re-lay
// out their axes only when needed, non-finite steps and spikes are marked, overlaid validation
// curves fit, the dashboard shows the charts that apply, the crosshair read-out goes when the
// mouse leaves.
#include "tests/ui/training_ui_support.h"

#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>

using namespace fovea::test_ui;

class TrainingWindowTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  QString runs_;

  /// The view of `chart` shown with a series "run" of 20 falling steps drawn; null if it did not show.
  static QChartView* showCurve(MetricChart& chart) {
    if (!showChart(chart, QStringLiteral("run"))) return nullptr;
    for (int step = 1; step <= 20; ++step) chart.append(QStringLiteral("run"), step, 5.0 / step);
    chart.redrawNow();
    return chart.findChild<QChartView*>();
  }

 private Q_SLOTS:
  void initTestCase() {
    runs_ = make_runs_folder(tmp_);
    QVERIFY(!runs_.isEmpty());
  }

  void theTrainingThreadStepsAsideForTheGuiThread() {
#ifdef __linux__
    const int gui_nice = current_thread_nice();  // 0, or what the suite was started with (nice -n 19 ctest)
    TrainingRun run;
    QTRY_COMPARE_WITH_TIMEOUT(nice_of_thread(QStringLiteral("fovea-training")), kTrainingThreadNice, 5000);
    QCOMPARE(current_thread_nice(), gui_nice);  // the GUI thread keeps its priority
#else
    QSKIP("thread priorities are set on Linux only");
#endif
  }

  void aLiveCurveReLaysOutItsStepAxisOnlyWhenItsRangeChanges() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    auto* view = showCurve(chart);
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
    for (const char* name : {"loss", "grad_norm", "lr"}) QCOMPARE(dashboard.chart(name)->markers()->steps(), QVector<double>{40});
    QVERIFY(dashboard.chart("bleu4")->markers()->steps().isEmpty());
    // Drawn where the step is, with the message as its tooltip.
    auto* chart = dashboard.chart("loss");
    QTRY_VERIFY(chart->isVisible());  // placed hidden, shown one at a time
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
    QCOMPARE(dashboard.chart("loss")->markers()->steps().size(), 2);
    dashboard.loadRun(log);
    QCOMPARE(dashboard.chart("loss")->markers()->steps(), QVector<double>{40});
    dashboard.removeRun(id);
    QVERIFY(dashboard.chart("loss")->markers()->steps().isEmpty());
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
    // A self-critical run against the samples baseline: the mean advantage is 0 by construction,
    // so the chart also draws its RMS, which moves.
    QVERIFY(!dashboard.shownCharts().contains("advantage"));
    dashboard.addRun("scst", "scst", false);
    for (int step = 1; step <= 3; ++step) {
      fovea::TrainRecord r;
      r.step = step;
      r.self_critical = true, r.advantage = 0.0, r.advantage_rms = 0.1 * step;
      dashboard.addTrainRecord("scst", r);
    }
    QVERIFY(dashboard.shownCharts().contains("advantage"));
    QCOMPARE(dashboard.points("scst", "advantage").size(), 3);
    QCOMPARE(dashboard.points("scst", "advantage_rms").last(), QPointF(3, 0.3));
    // Its legend names the one run drawn there (not the RMS, which the title names, nor the runs
    // without such points).
    const auto listed = [&dashboard] {
      QStringList labels;
      auto* view = dashboard.chart("advantage")->findChild<QChartView*>();
      for (auto* marker : view ? view->chart()->legend()->markers() : QList<QLegendMarker*>()) {
        if (marker->isVisible()) labels << marker->label();
      }
      return labels;
    };
    QTRY_COMPARE(listed().size(), 1);  // charts are placed hidden and shown one at a time
    QVERIFY2(listed()[0].contains("scst"), qPrintable(listed().join(", ")));
    // Narrow: fewer columns, every chart at least its minimum width.
    dashboard.resize(700, 800);
    QTRY_COMPARE(dashboard.columns(), 2);
    for (const auto& name : dashboard.shownCharts()) {
      QTRY_VERIFY(dashboard.chart(name)->isVisible());  // placed hidden, shown one at a time
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
    QScrollArea* scroll = nullptr;  // the dashboard's (the samples have their own)
    for (auto* s : w.findChildren<QScrollArea*>()) {
      if (s->widget() == w.dashboard()) scroll = s;
    }
    QVERIFY(scroll);
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    QVERIFY(w.dashboard()->width() <= scroll->viewport()->width());
    QVERIFY(w.dashboard()->columns() >= 1);
    QVERIFY2(w.gallery()->width() <= w.width() / 4, qPrintable(QString::number(w.gallery()->width())));
  }

  void theCrosshairReadOutGoesWhenTheMouseLeaves() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    auto* view = showCurve(chart);
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
    QVERIFY(showChart(chart, QStringLiteral("run")));
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
    QVERIFY(showChart(chart));
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

  void aLongCurveIsDrawnWithFewPointsThatStayWithinAPixel() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    QVERIFY(showChart(chart, QStringLiteral("run")));
    QVector<QPointF> raw;
    for (int step = 1; step <= 10000; ++step) raw.append({double(step), step == 5000 ? 9.0 : 4.0 / (1 + 0.001 * step)});
    chart.setPoints(QStringLiteral("run"), raw);
    chart.redrawNow();
    const auto drawn = chart.displayedPoints(QStringLiteral("run"));
    // A smooth curve on a 400-pixel plot: tens of points, not one or two per pixel column.
    QVERIFY2(drawn.size() >= 3 && drawn.size() < 150, qPrintable(QString::number(drawn.size())));
    QCOMPARE(drawn.front(), raw.front());
    QCOMPARE(drawn.back(), raw.back());
    QVERIFY(drawn.contains(raw[4999]));  // the spike stays
    // Every raw point lies within a pixel of the line drawn, the resolution decimation keeps (one
    // column's lowest and highest point). Measured on a 400x300 grid over the data's extent: the
    // plot is smaller, so this overstates the distances.
    const QPointF scale(400.0 / 10000, 300.0 / (9.0 - raw.back().y()));
    auto pixels = [&](const QPointF& p) { return QPointF(p.x() * scale.x(), p.y() * scale.y()); };
    for (const QPointF& raw_point : raw) {
      const QPointF p = pixels(raw_point);
      double nearest = 1e9;
      for (int i = 0; i + 1 < drawn.size(); ++i) {
        const QPointF a = pixels(drawn[i]), b = pixels(drawn[i + 1]);
        if (b.x() < p.x() - 2 || a.x() > p.x() + 2) continue;
        const QPointF d = b - a, v = p - a;
        const double t = std::clamp(QPointF::dotProduct(v, d) / std::max(QPointF::dotProduct(d, d), 1e-12), 0.0, 1.0);
        const QPointF off = v - t * d;
        nearest = std::min(nearest, std::hypot(off.x(), off.y()));
      }
      QVERIFY2(nearest <= 1.0, qPrintable(QString("step %1: %2 px from the line").arg(raw_point.x()).arg(nearest)));
    }
  }

  void aFinishedRunsCurvesFillTheirAxes() {
    MetricChart chart(QStringLiteral("loss"), QStringLiteral("nll"));
    QVERIFY(showChart(chart, QStringLiteral("run")));
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

};

QTEST_MAIN(TrainingWindowTest)
#include "test_training_window.moc"
