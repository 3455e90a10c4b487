#pragma once
/// A line chart of training metrics against the training step: one curve per series (a metric of
/// one run), several runs overlaid. The only place that touches Qt Charts (deprecated from Qt 6.10):
/// callers see this API and never a Qt Charts type. Points are kept raw; what is drawn is smoothed
/// (TensorBoard's debiased EMA) and min/max-decimated to about 2 points per pixel, redrawn at most
/// every ~100 ms, so live curves with 100k+ points stay cheap. Rubber-band zoom (double click
/// resets), a crosshair with a read-out (ChartCrosshair), markers at steps where something happened
/// (ChartMarkers), and PNG/SVG/CSV export (ChartExport, also from the right-click menu).
#include <QByteArray>
#include <QColor>
#include <QPair>
#include <QPointF>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include <memory>

namespace fovea::ui {

class ChartExport;
class ChartMarkers;

class MetricChart : public QWidget {
  Q_OBJECT
 public:
  explicit MetricChart(const QString& title, const QString& y_label, QWidget* parent = nullptr);
  ~MetricChart() override;

  /// Adds (or finds) a curve. key is unique within the chart; label goes into the legend.
  /// For an existing key the points are kept and label, color and dash are updated.
  void addSeries(const QString& key, const QString& label, const QColor& color, bool dashed = false);
  /// What the legend shows for a curve, when it must be shorter than its label (which readouts
  /// and CSV exports keep); empty: the label.
  void setLegendLabel(const QString& key, const QString& text);
  void removeSeries(const QString& key);
  /// Shows or hides a curve's legend entry (the curve stays, and keeps its label in CSV exports).
  void setInLegend(const QString& key, bool shown);
  void clear();  ///< removes every series
  bool hasSeries(const QString& key) const;
  QStringList seriesKeys() const;  ///< in the order they were added

  /// Vertical dotted lines at steps where something happened (e.g. a skipped non-finite step or
  /// a rollback), by group (e.g. a run). Drawn in the exports too.
  ChartMarkers* markers() const { return markers_; }

  void append(const QString& key, double step, double value);          ///< live point (key must exist)
  void setPoints(const QString& key, const QVector<QPointF>& points);  ///< replace all (past runs)
  int pointCount(const QString& key) const;                            ///< raw points stored (not decimated)
  QVector<QPointF> rawPoints(const QString& key) const;
  /// After smoothing + decimation, as drawn by the last redraw (see redrawNow()).
  QVector<QPointF> displayedPoints(const QString& key) const;

  /// EMA smoothing as in TensorBoard: s_t = w*s_{t-1} + (1-w)*x_t with TensorBoard's debiasing, w in
  /// [0, 0.999]. 0 = raw. When > 0 the raw curve is also drawn, faint.
  void setSmoothing(double weight);
  double smoothing() const;
  void setLogScale(bool on);  ///< log10 y axis; non-positive values are skipped when on
  void resetZoom();
  bool isZoomed() const;
  /// Delay between a change and its redraw (default ~100 ms). A dashboard staggers its charts'
  /// delays so their redraws and repaints land in different event-loop passes.
  void setRedrawDelay(int milliseconds);
  /// What the x axis counts ("step" by default); it also heads the crosshair read-out.
  void setXLabel(const QString& label);
  /// Redraws now if a change is pending. Normally a ~100 ms single-shot timer does it, and only while the
  /// widget is visible: a hidden chart (another tab) draws when shown.
  void redrawNow();

  /// PNG, SVG and CSV exports of this chart (and its right-click menu).
  ChartExport* exports() const { return exports_; }

  QString title() const;

  static constexpr QSize kMinimumSize{320, 220};
  QSize minimumSizeHint() const override { return kMinimumSize; }
  QSize sizeHint() const override { return {520, 320}; }

 Q_SIGNALS:
  /// The crosshair's read-out, when it changes; empty when the pointer leaves the plot. It reads
  /// "step 120 · run-a NLL: 1.234 · run-b NLL: 1.301 @100": the step is the data step nearest to
  /// the pointer over all series, "@s" marks a series whose own nearest point is at another step,
  /// and values are the smoothed ones when smoothing is on.
  void hovered(const QString& readout);

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Impl;
  class View;

  std::unique_ptr<Impl> d_;
  ChartExport* exports_;
  ChartMarkers* markers_;
};

}  // namespace fovea::ui
