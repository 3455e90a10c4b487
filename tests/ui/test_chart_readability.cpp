// Charts that read right whatever their values and size: values indistinguishable from zero
// drawn at zero (and a constant with an axis of its own size), a short chart's axis labelled at
// least twice inside it, a legend naming only the curves drawn.
#include "tests/ui/training_ui_support.h"

#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>

#include "ui/charts/curve_math.h"

using namespace fovea::test_ui;

class ChartReadabilityTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Scores indistinguishable from zero (a run too short to learn: BLEU-4 of 1e-14) are drawn at
  // the bottom of an axis whose labels say what they are, not stretched over it.
  void valuesIndistinguishableFromZeroStayAtTheBottomOfTheirAxis() {
    TrainingDashboard dashboard;
    dashboard.resize(1200, 800);
    dashboard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
    dashboard.addRun("short", "short", false);
    for (auto [step, bleu] : {std::pair{10, 3.4e-14}, {20, 1.7e-14}, {30, 1.8e-14}}) {
      fovea::ValidationRecord v;
      v.step = step;
      v.bleu[3] = bleu;
      dashboard.addValidationRecord("short", v);
    }
    auto* chart = dashboard.chart("bleu4");
    chart->redrawNow();
    auto* view = chart->findChild<QChartView*>();
    auto* y = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Vertical).value(0));
    QVERIFY(y);
    QVERIFY2(y->min() <= 1.7e-14 && y->max() >= 3.4e-14, qPrintable(QString("[%1, %2]").arg(y->min()).arg(y->max())));
    // Drawn where 0 is, within a hundredth of the axis.
    const double above_zero = 3.4e-14 / (y->max() - y->min());
    QVERIFY2(y->min() <= 0 && above_zero < 0.01,
             qPrintable(QString("%1 of the axis above 0 on [%2, %3]").arg(above_zero).arg(y->min()).arg(y->max())));
    // A constant keeps an axis of its own size around it (every sample ended: 100%), not one of
    // a millionth of it.
    MetricChart ended(QStringLiteral("end_rate"), QStringLiteral("% ended"));
    QVERIFY(showChart(ended, QStringLiteral("run")));
    for (int step = 1; step <= 3; ++step) ended.append(QStringLiteral("run"), step, 100.0);
    ended.redrawNow();
    auto* ey = qobject_cast<QValueAxis*>(ended.findChild<QChartView*>()->chart()->axes(Qt::Vertical).value(0));
    QVERIFY(ey && ey->min() < 100 && ey->max() > 100);
    QVERIFY2(ey->max() - ey->min() >= 10, qPrintable(QString("[%1, %2]").arg(ey->min()).arg(ey->max())));
  }

  // A short chart's axis still has two labels inside it to read its scale by: pointing between
  // 87 and 97% (an axis of 84 to 100, labels every 10) showed only 90, Qt leaving out the label at
  // the end.
  void aShortChartsAxisShowsAtLeastTwoLabels() {
    const auto inside = [](double min, double max, double step) {
      const double edge = 1e-9 * (max - min);
      return std::floor((max - edge) / step) - std::ceil((min + edge) / step) + 1;
    };
    using fovea::ui::curve::labelInterval;
    using fovea::ui::curve::niceInterval;
    QCOMPARE(inside(84, 100, niceInterval(16, 2)), 1.0);  // what it was
    QVERIFY(inside(84, 100, labelInterval(84, 100, 2)) >= 2);
    QVERIFY(inside(8, 12, labelInterval(8, 12, 2)) >= 2);  // caption lengths: 10 alone before
    QCOMPARE(labelInterval(0, 100, 4), niceInterval(100, 4));  // room for them: unchanged
    // A chart as short as the dashboard's on a 1000 px high screen, its points fitted to [84, 99].
    MetricChart chart(QStringLiteral("pointing"), QStringLiteral("%"));
    QVERIFY(showChart(chart, QStringLiteral("run")));
    chart.resize(400, 170);
    for (auto [step, pointing] : {std::pair{20, 85.0}, {40, 92.0}, {60, 98.0}}) {
      chart.append(QStringLiteral("run"), step, pointing);
    }
    QTRY_VERIFY(chart.findChild<QChartView*>()->chart()->plotArea().height() < 90);  // room for two intervals
    chart.redrawNow();
    auto* y = qobject_cast<QValueAxis*>(chart.findChild<QChartView*>()->chart()->axes(Qt::Vertical).value(0));
    QVERIFY(y);
    QVERIFY2(inside(y->min(), y->max(), y->tickInterval()) >= 2,
             qPrintable(QString("[%1, %2] by %3").arg(y->min()).arg(y->max()).arg(y->tickInterval())));
  }

  // Curves made while their chart is hidden (a run ticked while the chart is not shown) stay out
  // of its legend until they have points, and dashed ones stay out, once the chart shows.
  void aHiddenChartsLegendListsOnlyCurvesWithPointsOnceShown() {
    MetricChart chart(QStringLiteral("self_critical"), QStringLiteral("CIDEr-D"));
    QVERIFY(showChart(chart));
    chart.hide();  // the dashboard hides a chart no run has points for
    chart.addSeries(QStringLiteral("a"), QStringLiteral("a · reward"), Qt::red);
    chart.addSeries(QStringLiteral("a_base"), QStringLiteral("a · baseline"), Qt::red, true);
    chart.setInLegend(QStringLiteral("a_base"), false);
    chart.addSeries(QStringLiteral("b"), QStringLiteral("b · reward"), Qt::blue);
    chart.append(QStringLiteral("a"), 1, 5.0);
    chart.append(QStringLiteral("a_base"), 1, 4.0);
    chart.redrawNow();
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.redrawNow();
    const auto listed = [&chart] {
      QStringList labels;
      for (auto* marker : chart.findChild<QChartView*>()->chart()->legend()->markers()) {
        if (marker->isVisible()) labels << marker->label();
      }
      return labels;
    };
    QCOMPARE(listed(), QStringList{"a · reward"});
    chart.append(QStringLiteral("b"), 1, 3.0);  // b's first point: listed from now on
    chart.redrawNow();
    QCOMPARE(listed(), (QStringList{"a · reward", "b · reward"}));
  }
};

QTEST_MAIN(ChartReadabilityTest)
#include "test_chart_readability.moc"
