#pragma once
/// MetricChart's state (private to metric_chart.cpp): its series, axes, crosshair and markers,
/// and how they are drawn.
#include "ui/charts/chart_axes.h"
#include "ui/charts/chart_crosshair.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/chart_markers.h"
#include "ui/charts/curve_math.h"
#include "ui/charts/curve_points.h"
#include "ui/charts/metric_chart.h"
#include "ui/charts/metric_chart_view.h"

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
constexpr int kFaintAlpha = 60;
constexpr int kSparsePoints = 12;   // curves of at most this many points show them as dots     // raw curve under the smoothed one
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
  QString legend;  // shown in the legend instead of label when set
  QColor color;
  bool dashed = false;
  bool in_legend = true;
  // Whether its legend marker was last set shown (-1: not yet). A marker's isVisible() is false
  // while the chart is hidden, so it cannot tell whether the marker was hidden on purpose.
  int listed = -1;
  CurvePoints points;

  QVector<QPointF> displayed;  // as last handed to `line`
  bool dirty = true;
  Frame frame;
  PixelScale scale;  // the pixel scale `displayed` was simplified for
  // Made by Impl::materialise when the chart is first shown or drawn, not when the curve is added:
  // a run adds some 30 curves at once, and each pair of Qt Charts series (chart item, axes, legend
  // marker) costs a quarter of a millisecond; made per chart, they come one chart per redraw pass.
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
  ChartCrosshair* crosshair = nullptr;
  ChartMarkers* markers = nullptr;
  QTimer timer;
  bool pending = false;  // a change not drawn yet (kept while the widget is hidden)
  std::vector<std::unique_ptr<Series>> series;
  double smoothing = 0;
  bool log_y = false;

  /// A redraw within the redraw delay; never put off further: a steady stream still redraws.
  void schedule() {
    pending = true;
    if (!timer.isActive()) timer.start();
  }

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

  /// Gives `s` its two Qt Charts series (in the chart, on its axes, styled) if it has none yet.
  void materialise(Series& s) const {
    if (s.line) return;
    s.faint = new QLineSeries;
    s.line = new QLineSeries;
    chart->addSeries(s.faint);  // first, so it lies under the bold curve
    chart->addSeries(s.line);
    axes->attach(s.faint);
    axes->attach(s.line);
    for (QLegendMarker* marker : chart->legend()->markers(s.faint)) marker->setVisible(false);
    listInLegend(s);
    applyStyle(s);
    s.dirty = true;
  }

  void materialiseAll() const {
    for (const auto& s : series) materialise(*s);
  }

  void showInLegend(Series& s, bool shown) const {
    s.in_legend = shown;
    listInLegend(s);
  }

  /// A curve is listed in the legend once it has points (another run's curves that this chart's
  /// metric never got, a self-critical chart beside a cross-entropy run, name nothing drawn).
  void listInLegend(Series& s) const {
    if (!s.line) return;
    const bool listed = s.in_legend && !s.points.raw().isEmpty();
    if (s.listed == int(listed)) return;
    for (QLegendMarker* marker : chart->legend()->markers(s.line)) marker->setVisible(listed);
    s.listed = int(listed);
  }

  void applyStyle(Series& s) const {
    if (!s.line) return;  // styled when made
    s.line->setName(s.legend.isEmpty() ? s.label : s.legend);
    QPen pen(s.color, kLinePenWidth, s.dashed ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    s.line->setPen(pen);
    s.line->setMarkerSize(4);  // the dot of a one-point curve (drawn about twice this across)
    QColor faint = s.color;
    faint.setAlpha(kFaintAlpha);
    s.faint->setPen(QPen(faint, 1.0));
  }

  /// Pixels per step and per unit of y for data within `all` (the axes' range when zoomed): the plot
  /// as laid out, or the export size before it is.
  PixelScale pixelScale(const Frame& frame, const Bounds& all) const {
    const QRectF plot = chart->plotArea();
    const double height = plot.height() >= 50 ? plot.height() : kDefaultExportSize.height() - 80;
    double y0 = all.min_y, y1 = all.max_y;
    if (chart->isZoomed()) {
      y0 = axes->yMin();
      y1 = axes->yMax();
    }
    y0 = plotY(y0, log_y);
    y1 = plotY(y1, log_y);
    PixelScale scale;
    scale.x = frame.x1 > frame.x0 ? frame.buckets / (frame.x1 - frame.x0) : 1.0;
    scale.y = std::isfinite(y1 - y0) && y1 > y0 ? height / (y1 - y0) : 1.0;
    scale.log_y = log_y;
    return scale;
  }

  void draw(Series& s, const Frame& frame, PixelScale scale) {
    const QVector<QPointF> decimated = decimate(s.points.curve(), frame.x0, frame.x1, frame.buckets);
    s.displayed = simplify(decimated, scale);
    s.line->replace(s.displayed);
    // A line through one point draws nothing, and a few points (a validation curve) read better as
    // dots on the line: both show their points. Counted before simplify(): a long straight curve
    // drawn with few points is not a sparse one.
    const bool sparse = !decimated.isEmpty() && decimated.size() <= kSparsePoints;
    if (s.line->pointsVisible() != sparse) s.line->setPointsVisible(sparse);
    if (smoothing > 0)
      s.faint->replace(simplify(decimate(s.points.usable(), frame.x0, frame.x1, frame.buckets), scale));
    else if (s.faint->count() > 0)
      s.faint->clear();
    s.frame = frame;
    s.scale = scale;
    s.dirty = false;
  }

  void redraw() {
    timer.stop();
    pending = false;
    materialiseAll();
    const bool zoomed = chart->isZoomed();
    const Bounds all = dataBounds();
    Frame frame{all.min_x, all.max_x, bucketCount()};
    if (zoomed) frame = Frame{axes->x()->min(), axes->x()->max(), frame.buckets};
    const PixelScale scale = pixelScale(frame, all);
    for (auto& s : series) {
      if (s->dirty || s->frame != frame || s->scale != scale) draw(*s, frame, scale);
      listInLegend(*s);
    }
    if (!zoomed) axes->fit(all);
    axes->updateTicks();
    markers->place();
    crosshair->follow();  // the data or the axes under the crosshair moved
  }

  /// The points drawn are dropped first (a log axis warns about non-positive ones); redraw afterwards.
  void useLogY(bool on) {
    std::vector<QLineSeries*> lines;
    for (auto& s : series) {
      s->displayed.clear();
      if (!s->line) continue;
      lines.push_back(s->faint);
      lines.push_back(s->line);
    }
    axes->useLogY(on, lines);
  }

  /// The crosshair read-out for a step: the nearest point of every series (MetricChart::hovered).
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
    QGraphicsLineItem* line = crosshair->line();
    const bool crosshair_shown = line->isVisible();
    line->hide();
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    chart->scene()->render(&painter, QRectF(QPointF(0, 0), size), chart->mapRectToScene(QRectF(QPointF(0, 0), size)));
    line->setVisible(crosshair_shown);
  }

  /// What the exports' CSV holds: the raw points, one row each.
  QByteArray csvText() const {
    QByteArray out = "series," + csvField(x_label).toUtf8() + ",value\n";
    for (const auto& s : series) {
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
};

// ---------------------------------------------------------------------------------------------------

}  // namespace fovea::ui
