#include "ui/metric_chart.h"

#include "ui/curve_math.h"

#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QGraphicsLayout>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QRubberBand>
#include <QSaveFile>
#include <QSvgGenerator>
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
constexpr int kMinDragPx = 6;       // a shorter rubber band drag is a click, not a zoom
constexpr int kFaintAlpha = 60;     // raw curve under the smoothed one
constexpr qreal kLinePenWidth = 1.6;
const QSize kDefaultExportSize(800, 500);
const QString kSeparator = QStringLiteral(" \u00B7 ");

QString writeError(const QString& path, const QString& reason) {
  return QStringLiteral("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), reason);
}

void setPointSize(QFont& font, qreal points, bool bold) {
  font.setPointSizeF(points);
  font.setBold(bold);
}

void styleAxis(QAbstractAxis* axis, const QString& title) {
  QFont labels = axis->labelsFont();
  setPointSize(labels, 8, false);
  axis->setLabelsFont(labels);
  QFont title_font = axis->titleFont();
  setPointSize(title_font, 8, false);
  axis->setTitleFont(title_font);
  axis->setTitleText(title);
  axis->setMinorGridLineColor(QColor(0, 0, 0, 18));
}

/// One curve: its raw points, the drawable (and smoothed) version cached, and the two Qt Charts series
/// drawing it. The cache grows in place while points arrive in step order and is rebuilt otherwise.
struct Series {
  QString key;
  QString label;
  QColor color;
  bool dashed = false;
  QVector<QPointF> raw;

  int consumed = 0;           // raw points already looked at by the cache
  QVector<QPointF> usable;    // finite (positive when log), sorted by step
  QVector<QPointF> smoothed;  // empty when smoothing is 0
  Bounds bounds;              // of usable (smoothed lies inside: the EMA is a weighted mean)
  Ema ema;

  QVector<QPointF> displayed;  // as last handed to `line`
  bool dirty = true;
  Frame frame;
  QLineSeries* line = nullptr;   // smoothed (or raw), in the legend
  QLineSeries* faint = nullptr;  // raw under the smoothed one, not in the legend
};

}  // namespace

// ---------------------------------------------------------------------------------------------------

/// The chart view: rubber band zoom, double click resets, crosshair on hover, context menu.
class MetricChart::View : public QChartView {
 public:
  View(QChart* chart, MetricChart* owner) : QChartView(chart, owner), owner_(owner) {
    setRubberBand(QChartView::RectangleRubberBand);
    setRenderHint(QPainter::Antialiasing);
    setFrameShape(QFrame::NoFrame);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
  }

 protected:
  void mousePressEvent(QMouseEvent* event) override {
    if (event->button() == Qt::LeftButton) press_pos_ = event->position().toPoint();
    QChartView::mousePressEvent(event);
  }

  void mouseMoveEvent(QMouseEvent* event) override {
    QChartView::mouseMoveEvent(event);
    owner_->onHover(event->position());
  }

  void mouseReleaseEvent(QMouseEvent* event) override {
    if (event->button() == Qt::RightButton) {  // QChartView would zoom out; the context menu is ours
      event->accept();
      return;
    }
    const bool click = (event->position().toPoint() - press_pos_).manhattanLength() < kMinDragPx;
    if (event->button() == Qt::LeftButton && click) {
      if (auto* band = findChild<QRubberBand*>()) band->hide();
      event->accept();
      return;
    }
    QChartView::mouseReleaseEvent(event);
  }

  void mouseDoubleClickEvent(QMouseEvent* event) override {
    if (event->button() != Qt::LeftButton) return QChartView::mouseDoubleClickEvent(event);
    owner_->resetZoom();
    event->accept();
  }

  void leaveEvent(QEvent* event) override {
    owner_->onLeave();
    QChartView::leaveEvent(event);
  }

  void contextMenuEvent(QContextMenuEvent* event) override {
    owner_->showContextMenu(event->globalPos());
    event->accept();
  }

 private:
  MetricChart* owner_;
  QPoint press_pos_;
};

// ---------------------------------------------------------------------------------------------------

struct MetricChart::Impl {
  MetricChart* owner = nullptr;
  QString title;
  QString y_label;
  QString x_label;  ///< the x axis title (tr("step") unless setXLabel)
  QChart* chart = nullptr;  // owned by view
  View* view = nullptr;
  QValueAxis* x_axis = nullptr;
  QValueAxis* y_linear = nullptr;
  QLogValueAxis* y_log = nullptr;
  QAbstractAxis* y_axis = nullptr;  // the one in use, the other is hidden
  QGraphicsLineItem* crosshair = nullptr;
  QLabel* readout = nullptr;
  QTimer timer;
  bool pending = false;  // a change not drawn yet (kept while the widget is hidden)
  std::vector<std::unique_ptr<Series>> series;
  double smoothing = 0;
  bool log_y = false;
  bool fitting = false;  // our own axis range changes are not zooms
  bool fit_tight = true;  // the next fit ignores the axes' ranges: no data yet, or whole curves replaced
  double last_redraw_ms = 0;
  QString last_hover;
  QPointF hover_pos;  // view coordinates of the crosshair, while `hovering`
  bool hovering = false;

  Series* find(const QString& key) const {
    for (const auto& s : series)
      if (s->key == key) return s.get();
    return nullptr;
  }

  void resetCache(Series& s) const {
    s.consumed = 0;
    s.usable.clear();
    s.smoothed.clear();
    s.bounds = Bounds();
    s.ema = Ema{smoothing};
    s.dirty = true;
  }

  void invalidateAll() {
    for (auto& s : series) resetCache(*s);
  }

  void addUsable(Series& s, const QPointF& p) const {
    s.usable.append(p);
    s.bounds.add(p);
    if (smoothing > 0) s.smoothed.append(QPointF(p.x(), s.ema.next(p.y())));
  }

  /// Points that arrived out of step order: sort them all and start over.
  void rebuildSorted(Series& s) const {
    resetCache(s);
    QVector<QPointF> sorted;
    sorted.reserve(s.raw.size());
    for (const QPointF& p : s.raw)
      if (isUsable(p, log_y)) sorted.append(p);
    std::stable_sort(sorted.begin(), sorted.end(), lessX);
    for (const QPointF& p : sorted) addUsable(s, p);
    s.consumed = int(s.raw.size());
  }

  /// The curve drawn bold (smoothed when smoothing is on), brought up to date with the raw points.
  const QVector<QPointF>& curve(Series& s) const {
    if (s.consumed == 0) {
      s.usable.reserve(s.raw.size());
      if (smoothing > 0) s.smoothed.reserve(s.raw.size());
    }
    for (; s.consumed < s.raw.size(); ++s.consumed) {
      const QPointF& p = s.raw[s.consumed];
      if (!isUsable(p, log_y)) continue;
      if (!s.usable.isEmpty() && p.x() < s.usable.back().x()) {
        rebuildSorted(s);
        break;
      }
      addUsable(s, p);
    }
    return smoothing > 0 ? s.smoothed : s.usable;
  }

  Bounds dataBounds() const {
    Bounds all;
    for (const auto& s : series) {
      curve(*s);
      if (s->bounds.valid()) all.unite(s->bounds);
    }
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

  void attachAxes(QLineSeries* line) const {
    line->attachAxis(x_axis);
    line->attachAxis(y_axis);
  }

  void draw(Series& s, const Frame& frame) {
    const QVector<QPointF>& points = curve(s);
    s.displayed = decimate(points, frame.x0, frame.x1, frame.buckets);
    s.line->replace(s.displayed);
    const bool lone = s.displayed.size() == 1;  // a line through one point draws nothing: show a dot
    if (s.line->pointsVisible() != lone) s.line->setPointsVisible(lone);
    if (smoothing > 0)
      s.faint->replace(decimate(s.usable, frame.x0, frame.x1, frame.buckets));
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
    if (zoomed) frame = Frame{x_axis->min(), x_axis->max(), frame.buckets};
    for (auto& s : series)
      if (s->dirty || s->frame != frame) draw(*s, frame);
    if (!zoomed) fitAxes(all);
    updateTicks();
    if (hovering) owner->onHover(hover_pos);  // the data or the axes under the crosshair moved
    last_redraw_ms = clock.nsecsElapsed() / 1e6;
  }

  void fitAxes(const Bounds& b) {
    fitting = true;
    if (!b.valid()) {
      x_axis->setRange(0, 1);
      y_axis->setRange(log_y ? 1 : 0, log_y ? 10 : 1);
      fit_tight = true;
    } else {
      fitX(b.min_x, b.max_x);
      log_y ? fitLogY(b.min_y, b.max_y) : fitLinearY(b.min_y, b.max_y);
      fit_tight = false;
    }
    fitting = false;
  }

  /// The range an axis keeps or grows to (curve::liveRange); a tight fit for a first look at the
  /// data or curves set whole (a finished run loaded), which have no live end to leave room for.
  Range currentRange(double min, double max) const { return fit_tight ? Range{} : Range{min, max}; }

  /// Axis ends snap to round numbers and follow a live curve with headroom (curve::liveRange), so
  /// the range (and Qt Charts' re-layout of the axis) changes only now and then, not at every point.
  static void setRangeIfChanged(QValueAxis* axis, const Range& r) {
    if (axis->min() != r.min || axis->max() != r.max) axis->setRange(r.min, r.max);
  }

  void fitX(double lo, double hi) {
    const double pad = hi > lo ? 0.01 * (hi - lo) : 1;
    LiveAxis how;
    how.ticks = 5;
    if (lo >= 0) how.floor = 0;  // steps >= 0 keep the axis >= 0
    setRangeIfChanged(x_axis, liveRange(currentRange(x_axis->min(), x_axis->max()), lo >= 0 ? std::max(0.0, lo - pad) : lo - pad,
                                        hi + pad, how));
  }

  void fitLinearY(double lo, double hi) {
    const double pad = hi > lo ? 0.05 * (hi - lo) : (lo != 0 ? 0.1 * std::abs(lo) : 1);
    LiveAxis how;
    how.ticks = 10;
    if (lo >= 0) how.floor = 0;  // a falling loss does not get headroom below zero
    setRangeIfChanged(y_linear, liveRange(currentRange(y_linear->min(), y_linear->max()), lo - pad, hi + pad, how));
  }

  /// Log range with a 5% margin (in decades), kept while it holds the data like a linear axis.
  /// QLogValueAxis labels only powers of its base: base 10 from two decades on, base 2 below
  /// (0.25, 0.5, 1, 2, 4), and the range widened to hold at least one such power.
  void fitLogY(double lo_value, double hi_value) {
    const double lo10 = std::log10(lo_value), hi10 = std::log10(hi_value);
    const double pad = hi10 > lo10 ? 0.05 * (hi10 - lo10) : 0.1;
    LiveAxis how;
    how.ticks = 0;
    const Range current = currentRange(std::log10(y_log->min()), std::log10(y_log->max()));
    const Range r = liveRange(current, lo10 - pad, hi10 + pad, how);
    if (r.min == current.min && r.max == current.max) return;  // kept (pow(log10(x)) need not give x back)
    double lo = r.min, hi = r.max;
    const double base = hi - lo >= 2 ? 10 : 2;
    if (y_log->base() != base) {
      y_log->setBase(base);
      y_log->setMinorTickCount(base == 10 ? 8 : 0);
    }
    lo /= std::log10(base);  // now in powers of base
    hi /= std::log10(base);
    if (std::floor(hi) < std::ceil(lo)) {
      if (lo - std::floor(lo) < std::ceil(hi) - hi) lo = std::floor(lo);
      else hi = std::ceil(hi);
    }
    const double min = std::pow(base, lo), max = std::pow(base, hi);
    if (y_log->min() != min || y_log->max() != max) y_log->setRange(min, max);
  }

  void updateTicks() {
    const QRectF plot = chart->plotArea();
    const double x_step = niceInterval(x_axis->max() - x_axis->min(), std::max(2, int(plot.width() / 90)));
    x_axis->setTickInterval(x_step);  // Qt skips an unchanged interval...
    // ...but not an unchanged label format: QValueAxis::setLabelFormat always signals, and the chart
    // then re-lays out the axis and re-shapes every label, at every live redraw.
    const QString x_format = x_step >= 1 ? QStringLiteral("%.0f") : QStringLiteral("%g");
    if (x_axis->labelFormat() != x_format) x_axis->setLabelFormat(x_format);
    const double y_step = niceInterval(y_linear->max() - y_linear->min(), std::max(2, int(plot.height() / 45)));
    y_linear->setTickInterval(y_step);
  }

  /// Ticks at round multiples of an interval chosen for the range. The interval follows minChanged /
  /// maxChanged, which Qt Charts emits before it lays the axis out for the new range: set after that
  /// (on rangeChanged), a zoom-out would first lay out one tick per old interval, possibly millions.
  void useDynamicTicks(QValueAxis* axis) {
    axis->setTickInterval(1);
    axis->setTickAnchor(0);
    axis->setTickType(QValueAxis::TicksDynamic);
    QObject::connect(axis, &QValueAxis::minChanged, owner, [this] { updateTicks(); });
    QObject::connect(axis, &QValueAxis::maxChanged, owner, [this] { updateTicks(); });
  }

  /// Both y axes stay in the chart and the series move between them: removing an axis from a QChart
  /// leaves its grid and labels on screen until a deferred delete runs.
  void createYAxes() {
    y_linear = new QValueAxis;
    useDynamicTicks(y_linear);
    y_linear->setLabelFormat(QStringLiteral("%g"));
    y_log = new QLogValueAxis;
    y_log->setBase(10);
    y_log->setLabelFormat(QStringLiteral("%g"));
    y_log->setMinorTickCount(8);
    y_log->setRange(1, 10);
    for (QAbstractAxis* axis : {static_cast<QAbstractAxis*>(y_linear), static_cast<QAbstractAxis*>(y_log)}) {
      styleAxis(axis, y_label);
      chart->addAxis(axis, Qt::AlignLeft);
    }
    y_log->setVisible(false);
    y_axis = y_linear;
  }

  /// The points drawn are dropped first (a log axis warns about non-positive ones); redraw afterwards.
  void useYAxis(QAbstractAxis* axis) {
    if (axis == y_axis) return;
    for (auto& s : series) {
      s->displayed.clear();
      for (QLineSeries* line : {s->faint, s->line}) {
        line->clear();
        line->detachAxis(y_axis);
        line->attachAxis(axis);
      }
    }
    y_axis->setVisible(false);
    axis->setVisible(true);
    y_axis = axis;
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
      const QVector<QPointF>& points = curve(*s);
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

  d_->x_axis = new QValueAxis;
  d_->useDynamicTicks(d_->x_axis);
  d_->x_label = tr("step");
  styleAxis(d_->x_axis, d_->x_label);
  chart->addAxis(d_->x_axis, Qt::AlignBottom);
  connect(d_->x_axis, &QValueAxis::rangeChanged, this, [this] {
    if (!d_->fitting) scheduleRedraw();  // a zoom: decimate the new window
  });
  d_->createYAxes();
  d_->fitAxes(Bounds());

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
    d_->updateTicks();
    scheduleRedraw();
  });
}

MetricChart::~MetricChart() {
  // The chart goes before d_ so no signal of its teardown reaches a half-destroyed Impl.
  d_->timer.stop();
  d_->x_axis->disconnect(this);
  d_->y_linear->disconnect(this);
  d_->chart->disconnect(this);
  delete d_->view;
}

void MetricChart::scheduleRedraw() {
  d_->pending = true;
  if (!d_->timer.isActive()) d_->timer.start();  // never restarted: a steady stream still redraws
}

void MetricChart::setXLabel(const QString& label) {
  d_->x_label = label;
  d_->x_axis->setTitleText(label);
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
    d_->attachAxes(created->faint);
    d_->attachAxes(created->line);
    for (QLegendMarker* marker : d_->chart->legend()->markers(created->faint)) marker->setVisible(false);
    s = created.get();
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
  s->raw.append(QPointF(step, value));  // the cache catches up at the next redraw
  s->dirty = true;
  scheduleRedraw();
}

void MetricChart::setPoints(const QString& key, const QVector<QPointF>& points) {
  Series* s = d_->find(key);
  if (!s) {
    qWarning("MetricChart::setPoints: no series '%s' in '%s'", qPrintable(key), qPrintable(d_->title));
    return;
  }
  s->raw = points;
  d_->resetCache(*s);
  d_->fit_tight = true;
  scheduleRedraw();
}

int MetricChart::pointCount(const QString& key) const {
  const Series* s = d_->find(key);
  return s ? int(s->raw.size()) : 0;
}

QVector<QPointF> MetricChart::rawPoints(const QString& key) const {
  const Series* s = d_->find(key);
  return s ? s->raw : QVector<QPointF>();
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
  d_->useYAxis(on ? static_cast<QAbstractAxis*>(d_->y_log) : d_->y_linear);
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
  const double step = d_->x_axis->min() + fraction * (d_->x_axis->max() - d_->x_axis->min());
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

// --- context menu ---------------------------------------------------------------------------------------

void MetricChart::showContextMenu(const QPoint& global_pos) {
  QMenu menu(this);
  QAction* reset = menu.addAction(tr("Reset Zoom"), this, &MetricChart::resetZoom);
  reset->setEnabled(isZoomed());
  menu.addSeparator();
  menu.addAction(tr("Export PNG…"), this, [this] { exportWithDialog(QStringLiteral("png")); });
  menu.addAction(tr("Export SVG…"), this, [this] { exportWithDialog(QStringLiteral("svg")); });
  menu.addAction(tr("Export CSV…"), this, [this] { exportWithDialog(QStringLiteral("csv")); });
  menu.exec(global_pos);
}

void MetricChart::exportWithDialog(const QString& kind) {
  QString base = d_->title.toLower();
  base.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
  if (base.isEmpty() || base == QLatin1String("-")) base = QStringLiteral("chart");
  const QString filter = kind.toUpper() + QStringLiteral(" (*.") + kind + QLatin1Char(')');
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Chart"), base + QLatin1Char('.') + kind, filter);
  if (path.isEmpty()) return;
  QString error;
  const bool ok = kind == QLatin1String("png")   ? exportPng(path, &error)
                  : kind == QLatin1String("svg") ? exportSvg(path, &error)
                                                 : exportCsv(path, &error);
  if (!ok) QMessageBox::warning(this, tr("Export Chart"), error);
}

// --- export ---------------------------------------------------------------------------------------------

bool MetricChart::exportPng(const QString& path, QString* error) const {
  const QSize size = d_->exportSize();
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    d_->render(painter, size);
  }
  QSaveFile file(path);
  const bool ok = file.open(QIODevice::WriteOnly) && image.save(&file, "PNG") && file.commit();
  if (!ok && error) *error = writeError(path, file.errorString());
  return ok;
}

bool MetricChart::exportSvg(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = writeError(path, file.errorString());
    return false;
  }
  const QSize size = d_->exportSize();
  QSvgGenerator svg;
  svg.setOutputDevice(&file);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setTitle(d_->title);
  {
    QPainter painter(&svg);
    d_->render(painter, size);
  }
  const bool ok = file.commit();
  if (!ok && error) *error = writeError(path, file.errorString());
  return ok;
}

bool MetricChart::exportCsv(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = writeError(path, file.errorString());
    return false;
  }
  QByteArray out = "series," + csvField(d_->x_label).toUtf8() + ",value\n";
  for (const auto& s : d_->series) {
    const QByteArray name = csvField(s->label).toUtf8();
    for (const QPointF& p : s->raw) {
      out += name;
      out += ',';
      out += csvNumber(p.x()).toLatin1();
      out += ',';
      out += csvNumber(p.y()).toLatin1();
      out += '\n';
    }
  }
  const bool ok = file.write(out) == out.size() && file.commit();
  if (!ok && error) *error = writeError(path, file.errorString());
  return ok;
}

}  // namespace fovea::ui
