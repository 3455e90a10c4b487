#include "ui/charts/curve_points.h"

#include <algorithm>

namespace fovea::ui {

using namespace curve;

void CurvePoints::setView(double smoothing, bool log_y) {
  smoothing_ = smoothing;
  log_y_ = log_y;
  reset();
}

void CurvePoints::append(const QPointF& p) { raw_.append(p); }

void CurvePoints::setAll(const QVector<QPointF>& points) {
  raw_ = points;
  reset();
}

void CurvePoints::reset() {
  consumed_ = 0;
  usable_.clear();
  smoothed_.clear();
  bounds_ = Bounds();
  ema_ = Ema{smoothing_};
}

void CurvePoints::add(const QPointF& p) {
  usable_.append(p);
  bounds_.add(p);
  if (smoothing_ > 0) smoothed_.append(QPointF(p.x(), ema_.next(p.y())));
}

void CurvePoints::rebuildSorted() {
  reset();
  QVector<QPointF> sorted;
  sorted.reserve(raw_.size());
  for (const QPointF& p : raw_)
    if (isUsable(p, log_y_)) sorted.append(p);
  std::stable_sort(sorted.begin(), sorted.end(), lessX);
  for (const QPointF& p : sorted) add(p);
  consumed_ = int(raw_.size());
}

const QVector<QPointF>& CurvePoints::curve() {
  if (consumed_ == 0) {
    usable_.reserve(raw_.size());
    if (smoothing_ > 0) smoothed_.reserve(raw_.size());
  }
  for (; consumed_ < raw_.size(); ++consumed_) {
    const QPointF& p = raw_[consumed_];
    if (!isUsable(p, log_y_)) continue;
    if (!usable_.isEmpty() && p.x() < usable_.back().x()) {
      rebuildSorted();
      break;
    }
    add(p);
  }
  return smoothing_ > 0 ? smoothed_ : usable_;
}

const QVector<QPointF>& CurvePoints::usable() {
  curve();
  return usable_;
}

const Bounds& CurvePoints::bounds() {
  curve();
  return bounds_;
}

}  // namespace fovea::ui
