#include "ui/charts/metric_chart.h"

#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <QElapsedTimer>
#include <QGraphicsLayout>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QLabel>
#include <QPainter>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ui/charts/chart_export.h"
#include "ui/charts/metric_chart_impl.h"

namespace fovea::ui {

MetricChart::MetricChart(const QString& title, const QString& y_label, QWidget* parent)
    : QWidget(parent),
      d_(std::make_unique<Impl>()),
      exports_(new ChartExport(this, {[this] { return d_->exportSize(); },
                                      [this](QPainter& painter, const QSize& size) { d_->render(painter, size); },
                                      [this] { return d_->csvText(); }})) {
  d_->owner = this;
  d_->title = title;
  d_->y_label = y_label;

  auto* chart = new QChart;
  chart->setTheme(QChart::ChartThemeLight);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  chart->setTitle(title);
  QFont title_font = chart->titleFont();
  setPointSize(title_font, 10, true);
  chart->setTitleFont(title_font);
  QLegend* legend = chart->legend();
  legend->setVisible(true);
  legend->setAlignment(Qt::AlignBottom);
  legend->setMarkerShape(QLegend::MarkerShapeFromSeries);
  legend->setShowToolTips(true);  // a label the legend had to cut, whole under the pointer
  QFont legend_font = legend->font();
  setPointSize(legend_font, 8, false);
  legend->setFont(legend_font);
  d_->chart = chart;

  d_->x_label = tr("step");
  d_->axes = std::make_unique<ChartAxes>(chart, this, d_->x_label, y_label);
  connect(d_->axes->x(), &QValueAxis::rangeChanged, this, [this] {
    if (!d_->axes->fitting()) d_->schedule();  // a zoom: decimate the new window
  });
  d_->axes->fit(Bounds());

  d_->view = new View(chart, this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(d_->view);

  d_->crosshair = new ChartCrosshair(chart, d_->view, d_->axes.get(),
                                     {[this] { return !d_->series.empty(); },
                                      [this](double step) { return d_->readoutText(step); }});
  d_->view->setCrosshair(d_->crosshair);
  connect(d_->crosshair, &ChartCrosshair::hovered, this, &MetricChart::hovered);
  markers_ = new ChartMarkers(chart, d_->axes.get(), this);
  d_->markers = markers_;
  connect(markers_, &ChartMarkers::changed, this, [this] { d_->schedule(); });

  d_->timer.setSingleShot(true);
  d_->timer.setInterval(kRedrawDelayMs);
  connect(&d_->timer, &QTimer::timeout, this, [this] {
    if (isVisible()) d_->redraw();  // hidden charts (other tabs) catch up in showEvent
  });
  connect(chart, &QChart::plotAreaChanged, this, [this] {
    d_->axes->updateTicks();
    d_->schedule();
  });
}

MetricChart::~MetricChart() {
  // The chart goes before d_ so no signal of its teardown reaches a half-destroyed Impl.
  d_->timer.stop();
  d_->axes->disconnect(this);
  d_->chart->disconnect(this);
  delete d_->view;
}

void MetricChart::setXLabel(const QString& label) {
  d_->x_label = label;
  d_->axes->setXTitle(label);
}

void MetricChart::setRedrawDelay(int milliseconds) { d_->timer.setInterval(std::max(0, milliseconds)); }

void MetricChart::redrawNow() {
  if (d_->pending) d_->redraw();
}

void MetricChart::addSeries(const QString& key, const QString& label, const QColor& color, bool dashed) {
  Series* s = d_->find(key);
  if (!s) {
    auto created = std::make_unique<Series>();
    created->key = key;
    s = created.get();
    d_->resetView(*s);  // smoothed as the chart's other curves are
    d_->series.push_back(std::move(created));
  }
  s->label = label;
  s->color = color;
  s->dashed = dashed;
  d_->applyStyle(*s);
  d_->schedule();
}

void MetricChart::setLegendLabel(const QString& key, const QString& text) {
  Series* s = d_->find(key);
  if (!s || s->legend == text) return;
  s->legend = text;
  d_->applyStyle(*s);
}

void MetricChart::setInLegend(const QString& key, bool shown) {
  if (Series* s = d_->find(key)) d_->showInLegend(*s, shown);
}

void MetricChart::removeSeries(const QString& key) {
  auto it = std::find_if(d_->series.begin(), d_->series.end(), [&](const auto& s) { return s->key == key; });
  if (it == d_->series.end()) return;
  for (QLineSeries* line : {(*it)->line, (*it)->faint}) {
    if (!line) continue;  // never made
    d_->chart->removeSeries(line);  // gives the ownership back
    delete line;
  }
  d_->series.erase(it);
  d_->schedule();
}

void MetricChart::clear() {
  while (!d_->series.empty()) removeSeries(d_->series.front()->key);
}

bool MetricChart::hasSeries(const QString& key) const { return d_->find(key) != nullptr; }

QStringList MetricChart::seriesKeys() const {
  QStringList keys;
  for (const auto& s : d_->series) keys.append(s->key);
  return keys;
}

void MetricChart::append(const QString& key, double step, double value) {
  Series* s = d_->find(key);
  if (!s) {
    qWarning("MetricChart::append: no series '%s' in '%s'", qPrintable(key), qPrintable(d_->title));
    return;
  }
  s->points.append(QPointF(step, value));  // what is drawn catches up at the next redraw
  s->dirty = true;
  d_->schedule();
}

void MetricChart::setPoints(const QString& key, const QVector<QPointF>& points) {
  Series* s = d_->find(key);
  if (!s) {
    qWarning("MetricChart::setPoints: no series '%s' in '%s'", qPrintable(key), qPrintable(d_->title));
    return;
  }
  s->points.setAll(points);
  s->dirty = true;
  d_->axes->fitTightNext();
  d_->schedule();
}

int MetricChart::pointCount(const QString& key) const {
  const Series* s = d_->find(key);
  return s ? int(s->points.raw().size()) : 0;
}

QVector<QPointF> MetricChart::rawPoints(const QString& key) const {
  const Series* s = d_->find(key);
  return s ? s->points.raw() : QVector<QPointF>();
}

QVector<QPointF> MetricChart::displayedPoints(const QString& key) const {
  const Series* s = d_->find(key);
  return s ? s->displayed : QVector<QPointF>();
}

void MetricChart::setSmoothing(double weight) {
  weight = std::isfinite(weight) ? std::clamp(weight, 0.0, kMaxSmoothing) : 0.0;
  if (weight == d_->smoothing) return;
  d_->smoothing = weight;
  d_->invalidateAll();
  d_->schedule();
}

double MetricChart::smoothing() const { return d_->smoothing; }

void MetricChart::setLogScale(bool on) {
  if (on == d_->log_y) return;
  d_->chart->zoomReset();
  d_->log_y = on;
  d_->useLogY(on);
  d_->invalidateAll();
  d_->redraw();
}

void MetricChart::resetZoom() {
  d_->chart->zoomReset();
  d_->redraw();
}

bool MetricChart::isZoomed() const { return d_->chart->isZoomed(); }

QString MetricChart::title() const { return d_->title; }

void MetricChart::showEvent(QShowEvent* event) {
  d_->materialiseAll();  // before the first paint: the legend lists every curve
  QWidget::showEvent(event);
  if (d_->pending) QTimer::singleShot(0, this, [this] { redrawNow(); });  // once the layout has settled
}

void MetricChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  d_->crosshair->leave();
}

}  // namespace fovea::ui
