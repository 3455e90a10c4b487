#include "ui/metric_chart.h"

#include "ui/chart_axes.h"
#include "ui/curve_math.h"
#include "ui/curve_points.h"
#include "ui/metric_chart_view.h"

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

namespace fovea::ui {

using namespace curve;

namespace {

constexpr int kRedrawDelayMs = 100;
constexpr double kMaxSmoothing = 0.999;
constexpr int kFaintAlpha = 60;     // raw curve under the smoothed one
constexpr qreal kLinePenWidth = 1.6;
const QSize kDefaultExportSize(800, 500);
const QString kSeparator = QStringLiteral(" \u00B7 ");

void setPointSize(QFont& font, qreal points, bool bold) {
  font.setPointSizeF(points);
  font.setBold(bold);
}

/// One curve: its points (and what is drawn of them) and the two Qt Charts series drawing it.
struct Series {
  QString key;
  QString label;
  QColor color;
  bool dashed = false;
  CurvePoints points;

  QVector<QPointF> displayed;  // as last handed to `line`
  bool dirty = true;
  Frame frame;
  QLineSeries* line = nullptr;   // smoothed (or raw), in the legend
  QLineSeries* faint = nullptr;  // raw under the smoothed one, not in the legend
};

}  // namespace

// ---------------------------------------------------------------------------------------------------

struct MetricChart::Impl {
  MetricChart* owner = nullptr;
  QString title;
  QString y_label;
  QString x_label;  ///< the x axis title (tr("step") unless setXLabel)
  QChart* chart = nullptr;  // owned by view
  View* view = nullptr;
  std::unique_ptr<ChartAxes> axes;
  QGraphicsLineItem* crosshair = nullptr;
  QLabel* readout = nullptr;
  QTimer timer;
  bool pending = false;  // a change not drawn yet (kept while the widget is hidden)
  std::vector<std::unique_ptr<Series>> series;
  double smoothing = 0;
  bool log_y = false;
  double last_redraw_ms = 0;
  QString last_hover;
  QPointF hover_pos;  // view coordinates of the crosshair, while `hovering`
  bool hovering = false;

  Series* find(const QString& key) const {
    for (const auto& s : series)
      if (s->key == key) return s.get();
    return nullptr;
  }

  /// A new series, or a change of smoothing or axis: the series' drawn points are redone.
  void resetView(Series& s) const {
    s.points.setView(smoothing, log_y);
    s.dirty = true;
  }

  void invalidateAll() {
    for (auto& s : series) resetView(*s);
  }

  Bounds dataBounds() const {
    Bounds all;
    for (const auto& s : series)
      if (s->points.bounds().valid()) all.unite(s->points.bounds());
    return all;
  }

  int bucketCount() const {
    const int width = int(chart->plotArea().width());
    return width >= 50 ? width : kDefaultExportSize.width() - 80;  // not laid out yet
  }

  void applyStyle(Series& s) const {
    s.line->setName(s.label);
    QPen pen(s.color, kLinePenWidth, s.dashed ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    s.line->setPen(pen);
    s.line->setMarkerSize(4);  // the dot of a one-point curve (drawn about twice this across)
    QColor faint = s.color;
    faint.setAlpha(kFaintAlpha);
    s.faint->setPen(QPen(faint, 1.0));
  }

  void draw(Series& s, const Frame& frame) {
    const QVector<QPointF>& points = s.points.curve();
    s.displayed = decimate(points, frame.x0, frame.x1, frame.buckets);
    s.line->replace(s.displayed);
    const bool lone = s.displayed.size() == 1;  // a line through one point draws nothing: show a dot
    if (s.line->pointsVisible() != lone) s.line->setPointsVisible(lone);
    if (smoothing > 0)
      s.faint->replace(decimate(s.points.usable(), frame.x0, frame.x1, frame.buckets));
    else if (s.faint->count() > 0)
      s.faint->clear();
    s.frame = frame;
    s.dirty = false;
  }

  void redraw() {
    timer.stop();
    pending = false;
    QElapsedTimer clock;
    clock.start();
    const bool zoomed = chart->isZoomed();
    const Bounds all = dataBounds();
    Frame frame{all.min_x, all.max_x, bucketCount()};
    if (zoomed) frame = Frame{axes->x()->min(), axes->x()->max(), frame.buckets};
    for (auto& s : series)
      if (s->dirty || s->frame != frame) draw(*s, frame);
    if (!zoomed) axes->fit(all);
    axes->updateTicks();
    if (hovering) owner->onHover(hover_pos);  // the data or the axes under the crosshair moved
    last_redraw_ms = clock.nsecsElapsed() / 1e6;
  }

  /// The points drawn are dropped first (a log axis warns about non-positive ones); redraw afterwards.
  void useLogY(bool on) {
    std::vector<QLineSeries*> lines;
    for (auto& s : series) {
      s->displayed.clear();
      lines.push_back(s->faint);
      lines.push_back(s->line);
    }
    axes->useLogY(on, lines);
  }

  QString readoutText(double step) const {
    struct Hit {
      const Series* series;
      QPointF point;
    };
    std::vector<Hit> hits;
    double header = step;
    double best = std::numeric_limits<double>::infinity();
    for (const auto& s : series) {
      const QVector<QPointF>& points = s->points.curve();
      if (points.isEmpty()) continue;
      const QPointF p = points[nearestIndex(points, step)];
      hits.push_back({s.get(), p});
      if (std::abs(p.x() - step) < best) {
        best = std::abs(p.x() - step);
        header = p.x();
      }
    }
    QString text = x_label + QLatin1Char(' ') + formatStep(header);
    for (const Hit& hit : hits) {
      text += kSeparator + hit.series->label + QStringLiteral(": ") + formatValue(hit.point.y());
      if (hit.point.x() != header) text += QStringLiteral(" @") + formatStep(hit.point.x());
    }
    return text;
  }

  /// Size exports are rendered at: the widget's when it has one, else 800x500.
  QSize exportSize() const {
    const bool sized = owner->isVisible() || owner->testAttribute(Qt::WA_Resized);
    return sized && !owner->size().isEmpty() ? owner->size() : kDefaultExportSize;
  }

  /// Paints the chart (axes, legend, curves; no crosshair) at `size` into painter.
  void render(QPainter& painter, const QSize& size) {
    if (chart->size().toSize() != size) {  // hidden widget: lay the chart out at the export size
      chart->resize(size);
      if (chart->layout()) chart->layout()->activate();
    }
    redraw();  // pending points, and decimation for this plot width
    const bool crosshair_shown = crosshair->isVisible();
    crosshair->hide();
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    chart->scene()->render(&painter, QRectF(QPointF(0, 0), size), chart->mapRectToScene(QRectF(QPointF(0, 0), size)));
    crosshair->setVisible(crosshair_shown);
  }
};

// ---------------------------------------------------------------------------------------------------

MetricChart::MetricChart(const QString& title, const QString& y_label, QWidget* parent)
    : QWidget(parent), d_(std::make_unique<Impl>()) {
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
    created->faint = new QLineSeries;
    created->line = new QLineSeries;
    d_->chart->addSeries(created->faint);  // first, so it lies under the bold curve
    d_->chart->addSeries(created->line);
    d_->axes->attach(created->faint);
    d_->axes->attach(created->line);
    for (QLegendMarker* marker : d_->chart->legend()->markers(created->faint)) marker->setVisible(false);
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

void MetricChart::setInLegend(const QString& key, bool shown) {
  if (Series* s = d_->find(key)) {
    for (QLegendMarker* marker : d_->chart->legend()->markers(s->line)) marker->setVisible(shown);
  }
}

void MetricChart::removeSeries(const QString& key) {
  auto it = std::find_if(d_->series.begin(), d_->series.end(), [&](const auto& s) { return s->key == key; });
  if (it == d_->series.end()) return;
  for (QLineSeries* line : {(*it)->line, (*it)->faint}) {
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

// --- what exports write -------------------------------------------------------------------------------

QSize MetricChart::exportSize() const { return d_->exportSize(); }

void MetricChart::renderTo(QPainter& painter, const QSize& size) const { d_->render(painter, size); }

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
