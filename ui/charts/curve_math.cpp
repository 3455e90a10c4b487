#include "ui/charts/curve_math.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace fovea::ui::curve {

bool lessX(const QPointF& a, const QPointF& b) { return a.x() < b.x(); }

/// A point that can be drawn: finite, and positive on a log axis.
bool isUsable(const QPointF& p, bool log_y) {
  return std::isfinite(p.x()) && std::isfinite(p.y()) && (!log_y || p.y() > 0);
}

/// The points of sorted `points` in [x0, x1] (plus the neighbour on each side, so the line reaches the
/// edge), reduced to the min and max of each of `buckets` equal x slices, in x order, plus the first and
/// last point so the curve starts and ends where the data does. Spikes survive. At most 2 * buckets + 4.
QVector<QPointF> decimate(const QVector<QPointF>& points, double x0, double x1, int buckets) {
  auto lo = std::lower_bound(points.cbegin(), points.cend(), QPointF(x0, 0), lessX);
  auto hi = std::upper_bound(lo, points.cend(), QPointF(x1, 0), lessX);
  if (lo != points.cbegin()) --lo;
  if (hi != points.cend()) ++hi;
  if (hi - lo <= 2 * buckets + 4) return QVector<QPointF>(lo, hi);

  QVector<QPointF> out;
  out.reserve(2 * buckets + 4);
  const QPointF* last_out = nullptr;
  auto push = [&](const QPointF* p) {
    if (p == last_out) return;
    out.append(*p);
    last_out = p;
  };
  auto flush = [&](const QPointF* min_p, const QPointF* max_p) {
    push(std::min(min_p, max_p));  // pointer order is x order
    push(std::max(min_p, max_p));
  };
  const QPointF* first = &*lo;
  const QPointF* last = &*(hi - 1);
  push(first);
  const double scale = x1 > x0 ? buckets / (x1 - x0) : 0.0;
  int bucket = -1;
  const QPointF* min_p = nullptr;
  const QPointF* max_p = nullptr;
  for (const QPointF* p = first + 1; p < last; ++p) {  // the ends (maybe outside [x0, x1]) are emitted as is
    const int b = std::clamp(int((p->x() - x0) * scale), 0, buckets - 1);
    if (b != bucket) {
      if (min_p) flush(min_p, max_p);
      bucket = b;
      min_p = max_p = p;
    } else if (p->y() < min_p->y()) {
      min_p = p;
    } else if (p->y() > max_p->y()) {
      max_p = p;
    }
  }
  if (min_p) flush(min_p, max_p);
  push(last);
  return out;
}

double plotY(double y, bool log_y) { return log_y ? std::log10(std::max(y, std::numeric_limits<double>::min())) : y; }

QVector<QPointF> simplify(const QVector<QPointF>& points, PixelScale scale, double tolerance_px) {
  const int n = int(points.size());
  if (n <= 2) return points;
  std::vector<QPointF> px(n);
  for (int i = 0; i < n; ++i) px[i] = QPointF(points[i].x() * scale.x, plotY(points[i].y(), scale.log_y) * scale.y);
  const auto norm2 = [](const QPointF& v) { return QPointF::dotProduct(v, v); };
  std::vector<char> keep(n, 0);
  keep[0] = keep[n - 1] = 1;
  std::vector<std::pair<int, int>> spans{{0, n - 1}};  // an explicit stack: no recursion depth to worry about
  const double tolerance2 = tolerance_px * tolerance_px;
  while (!spans.empty()) {
    const auto [a, b] = spans.back();
    spans.pop_back();
    const QPointF d = px[b] - px[a];
    const double length2 = norm2(d);
    int farthest = -1;
    double farthest2 = tolerance2;
    for (int i = a + 1; i < b; ++i) {
      // Squared distance from point i to the segment a-b (to point a when a and b coincide).
      const QPointF v = px[i] - px[a];
      const double t = length2 > 0 ? std::clamp(QPointF::dotProduct(v, d) / length2, 0.0, 1.0) : 0.0;
      const double dist2 = norm2(v - t * d);
      if (dist2 > farthest2) {
        farthest2 = dist2;
        farthest = i;
      }
    }
    if (farthest < 0) continue;
    keep[farthest] = 1;
    spans.push_back({a, farthest});
    spans.push_back({farthest, b});
  }
  QVector<QPointF> out;
  for (int i = 0; i < n; ++i)
    if (keep[i]) out.append(points[i]);
  return out;
}

/// Index of the point of sorted `points` whose step is nearest to x (points must not be empty).
int nearestIndex(const QVector<QPointF>& points, double x) {
  const auto it = std::lower_bound(points.cbegin(), points.cend(), QPointF(x, 0), lessX);
  if (it == points.cbegin()) return 0;
  if (it == points.cend()) return int(points.size()) - 1;
  const int i = int(it - points.cbegin());
  return x - points[i - 1].x() <= points[i].x() - x ? i - 1 : i;
}

/// A round tick interval (1, 2 or 5 times a power of ten) giving about `ticks` ticks over span.
double niceInterval(double span, int ticks) {
  if (!(span > 0)) return 1;
  const double raw = span / std::max(1, ticks);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double nice = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
  return nice * magnitude;
}

double labelInterval(double min, double max, int ticks) {
  const double span = max - min, edge = 1e-9 * span;
  double step = niceInterval(span, ticks);
  for (int finer = ticks + 1; finer <= 4 * ticks + 4; ++finer) {
    // Multiples strictly inside: the first above min, the last below max.
    if (std::floor((max - edge) / step) - std::ceil((min + edge) / step) >= 1) break;
    step = niceInterval(span, finer);
  }
  return step;
}

Range liveRange(const Range& current, double lo, double hi, const LiveAxis& how) {
  const bool has_current = current.max > current.min;
  if (has_current && current.min <= lo && hi <= current.max && hi - lo >= how.fill * (current.max - current.min)) {
    return current;
  }
  const double span = hi > lo ? hi - lo : std::max(1.0, std::abs(hi));
  const bool live = has_current && lo <= current.max && hi >= current.min;
  double a = lo, b = hi;
  if (live && lo < current.min) a = std::max(lo - how.headroom * span, std::min(lo, how.floor));
  if (live && hi > current.max) b = hi + how.headroom * span;
  if (how.ticks <= 0) return {a, b};
  const double step = niceInterval(b - a, how.ticks);
  return {std::floor(a / step) * step, std::ceil(b / step) * step};
}

bool isIntegral(double v) { return std::abs(v) < 1e15 && v == std::round(v); }

QString formatStep(double step) {
  return isIntegral(step) ? QString::number(qint64(std::llround(step))) : QString::number(step, 'g', 6);
}

QString formatValue(double v) { return QString::number(v, 'g', 4); }

/// Lossless and readable number for the CSV.
QString csvNumber(double v) {
  if (isIntegral(v)) return QString::number(qint64(std::llround(v)));
  return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

QString csvField(const QString& s) {
  if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))) return s;
  QString quoted = s;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

}  // namespace fovea::ui::curve
