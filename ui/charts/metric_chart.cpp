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
                                      [this] { return csvText(); }})) {
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
    if (!d_->axes->fitting()) scheduleRedraw();  // a zoom: decimate the new window
  });
  d_->axes->fit(Bounds());

  d_->view = new View(chart, this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(d_->view);

  d_->crosshair = new QGraphicsLineItem;
  d_->crosshair->setPen(QPen(QColor(0, 0, 0, 110), 1, Qt::DashLine));
  d_->crosshair->setZValue(1e6);
  d_->crosshair->hide();
  chart->scene()->addItem(d_->crosshair);

  d_->readout = new QLabel(d_->view->viewport());
  d_->readout->setAttribute(Qt::WA_TransparentForMouseEvents);
  d_->readout->setStyleSheet(QStringLiteral(
      "QLabel { background: rgba(255,255,255,215); border: 1px solid rgba(0,0,0,50); border-radius: 3px;"
      " padding: 1px 4px; color: #202020; font-size: 8pt; }"));
  d_->readout->ensurePolished();
  d_->readout->hide();

  d_->timer.setSingleShot(true);
  d_->timer.setInterval(kRedrawDelayMs);
  connect(&d_->timer, &QTimer::timeout, this, [this] {
    if (isVisible()) d_->redraw();  // hidden charts (other tabs) catch up in showEvent
  });
  connect(chart, &QChart::plotAreaChanged, this, [this] {
    d_->axes->updateTicks();
    scheduleRedraw();
  });
}

MetricChart::~MetricChart() {
  // The chart goes before d_ so no signal of its teardown reaches a half-destroyed Impl.
  d_->timer.stop();
  d_->axes->disconnect(this);
  d_->chart->disconnect(this);
  delete d_->view;
}

void MetricChart::scheduleRedraw() {
  d_->pending = true;
  if (!d_->timer.isActive()) d_->timer.start();  // never restarted: a steady stream still redraws
}

void MetricChart::setXLabel(const QString& label) {
  d_->x_label = label;
  d_->axes->setXTitle(label);
}

void MetricChart::setRedrawDelay(int milliseconds) { d_->timer.setInterval(std::max(0, milliseconds)); }

void MetricChart::redrawNow() {
  if (d_->pending) d_->redraw();
}

double MetricChart::lastRedrawMs() const { return d_->last_redraw_ms; }

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
  scheduleRedraw();
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
  scheduleRedraw();
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

void MetricChart::setMarkers(const QString& group, const QColor& color, const QVector<QPair<double, QString>>& markers) {
  auto& all = d_->markers;
  for (auto it = all.begin(); it != all.end();) {
    if (it->group != group) {
      ++it;
      continue;
    }
    d_->chart->scene()->removeItem(it->line);
    delete it->line;
    it = all.erase(it);
  }
  for (const auto& [step, label] : markers) {
    auto* line = new QGraphicsLineItem;
    QColor c = color;
    c.setAlpha(200);
    line->setPen(QPen(c, 1.4, Qt::DotLine));
    line->setZValue(1e5);  // over the curves, under the crosshair
    line->setToolTip(label);
    line->hide();  // placed at the next redraw
    d_->chart->scene()->addItem(line);
    all.push_back({group, step, line});
  }
  scheduleRedraw();
}

QVector<double> MetricChart::markerSteps() const {
  QVector<double> steps;
  for (const auto& m : d_->markers) steps.append(m.step);
  return steps;
}

void MetricChart::append(const QString& key, double step, double value) {
  Series* s = d_->find(key);
  if (!s) {
    qWarning("MetricChart::append: no series '%s' in '%s'", qPrintable(key), qPrintable(d_->title));
    return;
  }
  s->points.append(QPointF(step, value));  // what is drawn catches up at the next redraw
  s->dirty = true;
  scheduleRedraw();
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
  scheduleRedraw();
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
  scheduleRedraw();
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

bool MetricChart::logScale() const { return d_->log_y; }

void MetricChart::resetZoom() {
  d_->chart->zoomReset();
  d_->redraw();
}

bool MetricChart::isZoomed() const { return d_->chart->isZoomed(); }

QString MetricChart::readoutAt(double step) const { return d_->readoutText(step); }

QString MetricChart::title() const { return d_->title; }

void MetricChart::showEvent(QShowEvent* event) {
  d_->materialiseAll();  // before the first paint: the legend lists every curve
  QWidget::showEvent(event);
  if (d_->pending) QTimer::singleShot(0, this, [this] { redrawNow(); });  // once the layout has settled
}

void MetricChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  onLeave();
}

// --- hover --------------------------------------------------------------------------------------------

void MetricChart::onHover(const QPointF& view_pos) {
  const QPointF chart_pos = d_->chart->mapFromScene(d_->view->mapToScene(view_pos.toPoint()));
  const QRectF plot = d_->chart->plotArea();
  if (d_->series.empty() || !plot.contains(chart_pos) || plot.width() <= 0) return onLeave();

  d_->hover_pos = view_pos;
  d_->hovering = true;
  const double fraction = (chart_pos.x() - plot.left()) / plot.width();
  const QValueAxis* x = d_->axes->x();
  const double step = x->min() + fraction * (x->max() - x->min());
  const QPointF top = d_->chart->mapToScene(QPointF(chart_pos.x(), plot.top()));
  const QPointF bottom = d_->chart->mapToScene(QPointF(chart_pos.x(), plot.bottom()));
  d_->crosshair->setLine(QLineF(top, bottom));
  d_->crosshair->show();

  const QString text = readoutAt(step);
  QLabel* label = d_->readout;
  label->setText(label->fontMetrics().elidedText(text, Qt::ElideRight, std::max(40, int(plot.width()) - 20)));
  label->adjustSize();
  label->move(d_->view->mapFromScene(d_->chart->mapToScene(plot.topLeft())) + QPoint(6, 4));
  label->show();
  if (text != d_->last_hover) {
    d_->last_hover = text;
    Q_EMIT hovered(text);
  }
}

void MetricChart::onLeave() {
  d_->hovering = false;
  d_->crosshair->hide();
  d_->readout->hide();
  if (!d_->last_hover.isEmpty()) {
    d_->last_hover.clear();
    Q_EMIT hovered(QString());
  }
}

// What the exports' CSV holds: the raw points, one row each.
QByteArray MetricChart::csvText() const {
  QByteArray out = "series," + csvField(d_->x_label).toUtf8() + ",value\n";
  for (const auto& s : d_->series) {
    const QByteArray name = csvField(s->label).toUtf8();
    for (const QPointF& p : s->points.raw()) {
      out += name;
      out += ',';
      out += csvNumber(p.x()).toLatin1();
      out += ',';
      out += csvNumber(p.y()).toLatin1();
      out += '\n';
    }
  }
  return out;
}

}  // namespace fovea::ui
