#pragma once
/// The training dashboard's charts and their grid: each chart is made lazily (one per event-loop
/// turn once the dashboard has painted, or all at once when one is asked for), placed in as many
/// columns as the width allows, and shown one at a time; the charts that apply to the runs shown
/// are the ones placed. Smoothing, log scale and zoom reach every chart, made or still to make.
#include <QList>
#include <QMap>
#include <QObject>
#include <QStringList>
#include <QTimer>

class QGridLayout;
class QWidget;

namespace fovea::ui {

class MetricChart;

class ChartGrid : public QObject {
  Q_OBJECT
 public:
  /// Lays the charts out in a grid on `host` (the dashboard), which parents them.
  explicit ChartGrid(QWidget* host);

  /// A chart to make (in this order in the grid): its name, title and y axis label.
  void add(const QString& name, const QString& title, const QString& y_label);
  /// Chart `name`, every chart made first (nullptr for an unknown name).
  MetricChart* chart(const QString& name) const;
  QStringList names() const { return order_; }
  /// The charts placed, in grid order (every chart made first).
  QStringList shown() const;
  int columns() const { return columns_; }
  /// Which charts apply: REINFORCE charts only with a hard run; charts shown only with points
  /// (pretraining, self-critical training) once a run has them; all of them before any run.
  void setRunKinds(bool any_run, bool any_hard);
  /// Puts the charts that apply into a grid as wide as the host allows (when that changes).
  /// The charts are placed hidden and shown one at a time, 20 ms apart: laying out and drawing
  /// every chart at once would hold the GUI thread for tens of milliseconds.
  void relayout();
  /// The host's first paint: the charts are made one per turn from now on, and shown.
  void startShowing();
  /// The host shown again: charts placed while it was hidden start showing.
  void resumeShowing();
  void setSmoothing(double weight);
  void setLogScale(bool on);
  void resetZoom();

 Q_SIGNALS:
  /// A chart's readout under the pointer.
  void hovered(const QString& readout);

 private:
  struct ChartSpec {
    QString name, title, y_label;
  };
  /// Makes the next chart not made yet; false when all are.
  bool createNext();
  void ensureCharts() const;
  void showNext();

  QWidget* host_;
  QGridLayout* grid_;
  QMap<QString, MetricChart*> charts_;
  QList<ChartSpec> specs_;  ///< every chart, in grid order; made from these lazily
  QStringList order_;
  QStringList shown_;
  int columns_ = 0;
  bool any_run_ = false;
  bool any_hard_ = false;
  QStringList to_show_;  ///< placed, still hidden, shown one per turn
  QTimer show_timer_;
  QTimer create_timer_;
  double smoothing_ = 0;
  bool log_scale_ = false;
  bool painted_ = false;  ///< the host painted once: charts are made and shown from then on
};

}  // namespace fovea::ui
