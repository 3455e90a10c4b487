#pragma once
/// One curve's points as they arrive, and what MetricChart draws of them, kept up to date: the
/// usable points (finite, positive on a log axis) in step order, their bounds, and their smoothed
/// values. Points arriving in step order extend the cache in place (a live run appends thousands);
/// a point out of order, or a change of smoothing or axis, rebuilds it. Free of Qt Charts.
#include <QPointF>
#include <QVector>

#include "ui/charts/curve_math.h"

namespace fovea::ui {

class CurvePoints {
 public:
  /// Smoothing weight (TensorBoard's EMA, 0 = none) and whether the y axis is logarithmic;
  /// changing either rebuilds the cache at the next curve().
  void setView(double smoothing, bool log_y);

  void append(const QPointF& p);             ///< the cache catches up at the next curve()
  void setAll(const QVector<QPointF>& points);
  const QVector<QPointF>& raw() const { return raw_; }

  /// What is drawn bold: the smoothed points when smoothing is on, else the usable ones; up to
  /// date with raw().
  const QVector<QPointF>& curve();
  /// The usable points in step order (drawn faint under a smoothed curve), up to date with raw().
  const QVector<QPointF>& usable();
  /// Bounds of the usable points (the smoothed curve lies inside: the EMA is a weighted mean).
  const curve::Bounds& bounds();

 private:
  void reset();
  void add(const QPointF& p);
  void rebuildSorted();

  double smoothing_ = 0;
  bool log_y_ = false;
  QVector<QPointF> raw_;
  int consumed_ = 0;           // raw points already looked at by the cache
  QVector<QPointF> usable_;
  QVector<QPointF> smoothed_;  // empty when smoothing is 0
  curve::Bounds bounds_;
  curve::Ema ema_;
};

}  // namespace fovea::ui
