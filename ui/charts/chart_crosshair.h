#pragma once
/// A MetricChart's crosshair (private to it: the chart's callers never see a Qt Charts type): a
/// dashed vertical line that follows the pointer over the plot, and at the plot's top left a
/// read-out of every curve at that step. It says the read-out when it changes (empty when the
/// pointer leaves), and follows the data and the axes when they move under it.
#include <QObject>
#include <QPointF>
#include <QString>

#include <functional>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QGraphicsLineItem;
class QLabel;
QT_END_NAMESPACE

namespace fovea::ui {

class ChartAxes;

class ChartCrosshair : public QObject {
  Q_OBJECT
 public:
  /// What the chart tells its crosshair: whether it has curves, and the read-out for a step.
  struct Source {
    std::function<bool()> has_curves;
    std::function<QString(double step)> readout;
  };
  /// Adds the line to `chart`'s scene and the read-out to `view`'s viewport.
  ChartCrosshair(QChart* chart, QChartView* view, const ChartAxes* axes, Source source);

  /// The pointer is at `view_pos` (view coordinates): over the plot, the line and the read-out
  /// are there; elsewhere, as leave().
  void hoverAt(const QPointF& view_pos);
  void leave();
  /// The data or the axes changed: while shown, the read-out and the line are redone where the pointer is.
  void follow();
  /// The line, for a painting of the chart without it (the exports).
  QGraphicsLineItem* line() const { return line_; }

 Q_SIGNALS:
  void hovered(const QString& readout);

 private:
  QChart* chart_;
  QChartView* view_;
  const ChartAxes* axes_;
  Source source_;
  QGraphicsLineItem* line_;  ///< owned by the chart's scene
  QLabel* readout_;          ///< owned by the view's viewport
  QString last_;             ///< the read-out last said
  QPointF pos_;              ///< view coordinates of the line, while `shown_`
  bool shown_ = false;
};

}  // namespace fovea::ui
