#pragma once
/// The arithmetic behind MetricChart, free of Qt Charts: data bounds, TensorBoard's EMA smoothing,
/// min/max decimation to the pixels available, nearest-point lookup, round tick intervals, and
/// number formatting for read-outs and CSV.
#include <QPointF>
#include <QString>
#include <QVector>

#include <algorithm>
#include <limits>

namespace fovea::ui::curve {

/// Data extent of a set of points.
struct Bounds {
  double min_x = std::numeric_limits<double>::infinity();
  double max_x = -std::numeric_limits<double>::infinity();
  double min_y = std::numeric_limits<double>::infinity();
  double max_y = -std::numeric_limits<double>::infinity();

  bool valid() const { return min_x <= max_x; }
  void add(const QPointF& p) {
    min_x = std::min(min_x, p.x());
    max_x = std::max(max_x, p.x());
    min_y = std::min(min_y, p.y());
    max_y = std::max(max_y, p.y());
  }
  void unite(const Bounds& o) {
    min_x = std::min(min_x, o.min_x);
    max_x = std::max(max_x, o.max_x);
    min_y = std::min(min_y, o.min_y);
    max_y = std::max(max_y, o.max_y);
  }
};

/// The x window and resolution a series was decimated for; a redraw redoes a series when it changes.
struct Frame {
  double x0 = 0, x1 = 0;
  int buckets = 0;
  bool operator==(const Frame& o) const { return x0 == o.x0 && x1 == o.x1 && buckets == o.buckets; }
  bool operator!=(const Frame& o) const { return !(*this == o); }
};

/// TensorBoard's smoothing, one value at a time: an EMA started at 0 and divided by (1 - w^n) so the
/// start is not pulled towards 0. Values pass unchanged while all so far equal the first (TensorBoard
/// leaves a constant curve as it is; the EMA would add rounding noise).
struct Ema {
  double weight = 0;
  double last = 0;
  double weight_pow = 1;
  double first = 0;
  bool started = false;
  bool constant = true;

  double next(double y) {
    if (!started) first = y;
    started = true;
    constant = constant && y == first;
    last = last * weight + (1 - weight) * y;
    weight_pow *= weight;
    return constant ? y : last / (1 - weight_pow);
  }
};

/// Orders points by step.
bool lessX(const QPointF& a, const QPointF& b);

/// A point that can be drawn: finite, and positive on a log axis.
bool isUsable(const QPointF& p, bool log_y);

/// The points of sorted `points` in [x0, x1] (plus the neighbour on each side, so the line reaches the
/// edge), reduced to the min and max of each of `buckets` equal x slices, in x order, plus the first and
/// last point so the curve starts and ends where the data does. Spikes survive. At most 2 * buckets + 4.
QVector<QPointF> decimate(const QVector<QPointF>& points, double x0, double x1, int buckets);

/// How the plot maps data to pixels: pixels per step and per unit of y (per decade on a log axis).
struct PixelScale {
  double x = 1, y = 1;
  bool log_y = false;
  bool operator==(const PixelScale& o) const { return x == o.x && y == o.y && log_y == o.log_y; }
  bool operator!=(const PixelScale& o) const { return !(*this == o); }
};

/// Where y lies on the plot's y axis, in data units: y itself, or log10(y) on a log axis (the
/// smallest positive double standing in for y <= 0).
double plotY(double y, bool log_y);

/// `points` (in x order) without the points the eye cannot miss: Ramer-Douglas-Peucker in pixels,
/// dropping every point that lies within `tolerance_px` of the line its kept neighbours draw.
/// The ends, spikes and bends stay; a smooth curve of a thousand points drawn on a few hundred
/// pixels keeps a few dozen. Qt Charts strokes every point it is given (the series' hover shape),
/// about 8 µs a point, so a run's first redraw of ~30 curves spent tens of milliseconds on points
/// no one could see.
QVector<QPointF> simplify(const QVector<QPointF>& points, PixelScale scale, double tolerance_px = 0.25);

/// Index of the point of sorted `points` whose step is nearest to x (points must not be empty).
int nearestIndex(const QVector<QPointF>& points, double x);

/// A round tick interval (1, 2 or 5 times a power of ten) giving about `ticks` ticks over span.
double niceInterval(double span, int ticks);

/// The interval of an axis's labels over [min, max]: niceInterval(max − min, ticks), made finer
/// until at least two of its multiples (labels) lie inside the axis, so that its scale can be read
/// (Qt Charts may leave out the labels at the ends).
double labelInterval(double min, double max, int ticks);

/// An axis range.
struct Range {
  double min = 0, max = 0;
};

/// How a live axis follows its data (liveRange).
struct LiveAxis {
  int ticks = 5;          ///< the ends are multiples of niceInterval(span, ticks); 0: not rounded
  double fill = 0.5;      ///< the current range is kept while the data spans at least this share of it
  double headroom = 0.25; ///< share of the data's span added on a side the data has outgrown
  double floor = -std::numeric_limits<double>::infinity();  ///< headroom stops here (0: steps, losses)
};

/// The range an axis shows for data in [lo, hi] (margins included): `current` while it holds the data
/// and the data fills `fill` of it; else the data's range with round ends, and, on a side where the
/// data has outgrown `current` (a live curve growing or falling), `headroom` more. A steady curve then
/// moves the axis about twice per doubling instead of at each round number it passes: every move costs
/// Qt Charts a re-layout of the axis and its labels, the dearest part of a live redraw. A first fit
/// (current empty or disjoint from the data) is tight.
Range liveRange(const Range& current, double lo, double hi, const LiveAxis& how);

/// A whole number small enough to print exactly.
bool isIntegral(double v);

/// A step as the read-out shows it, and a value (4 significant digits).
QString formatStep(double step);
QString formatValue(double v);

/// Lossless and readable number for the CSV.
QString csvNumber(double v);

/// A CSV field, quoted when it holds a comma, a quote or a newline.
QString csvField(const QString& s);

}  // namespace fovea::ui::curve
