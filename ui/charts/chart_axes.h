#pragma once
/// The axes of a MetricChart (private to it: the chart's callers never see a Qt Charts type):
/// the step axis and two y axes, linear and log10, of which the one in use is shown. They fit the
/// data with headroom that a live curve grows into (curve::liveRange), so the range and Qt Charts'
/// re-layout change only now and then, and are ticked at round intervals for the plot's size.
#include <QString>

#include <vector>

#include "ui/charts/curve_math.h"

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QChart;
class QLineSeries;
class QLogValueAxis;
class QObject;
class QValueAxis;
QT_END_NAMESPACE

namespace fovea::ui {

class ChartAxes {
 public:
  /// Adds the axes to `chart`; their tick updates are connected in `context`'s name.
  ChartAxes(QChart* chart, QObject* context, const QString& x_title, const QString& y_title);

  QValueAxis* x() const { return x_; }
  QAbstractAxis* y() const { return y_; }  ///< the y axis in use
  bool logY() const;
  /// The range of the y axis in use (values, also on the log axis).
  double yMin() const;
  double yMax() const;
  /// Whether the range changes under way are fit()'s own (not a zoom).
  bool fitting() const { return fitting_; }
  /// The next fit() ignores the current ranges: no data yet, or whole curves replaced.
  void fitTightNext() { fit_tight_ = true; }

  void attach(QLineSeries* line) const;
  void setXTitle(const QString& title);
  /// Fits both axes to `b`; an invalid `b` (no data) gives the default ranges.
  void fit(const curve::Bounds& b);
  /// Tick intervals for the current ranges and plot size.
  void updateTicks();
  /// Moves `lines` to the log or the linear y axis and shows that one. Both stay in the chart:
  /// removing an axis from a QChart leaves its grid and labels on screen until a deferred delete.
  void useLogY(bool on, const std::vector<QLineSeries*>& lines);
  /// Disconnects the axes' signals from `receiver` (the chart's teardown).
  void disconnect(QObject* receiver) const;

 private:
  curve::Range currentRange(double min, double max) const;
  void fitX(double lo, double hi);
  void fitLinearY(double lo, double hi);
  void fitLogY(double lo_value, double hi_value);
  void useDynamicTicks(QValueAxis* axis, QObject* context);

  QChart* chart_;
  QValueAxis* x_ = nullptr;
  QValueAxis* y_linear_ = nullptr;
  QLogValueAxis* y_log_ = nullptr;
  QAbstractAxis* y_ = nullptr;
  bool fitting_ = false;
  bool fit_tight_ = true;
};

/// The look of the chart's axes: 8 pt labels and title, a faint minor grid.
void styleAxis(QAbstractAxis* axis, const QString& title);

}  // namespace fovea::ui
