#pragma once
/// The training dashboards: one MetricChart per quantity docs/design.md §2.3 names (NLL, the doubly
/// stochastic penalty, REINFORCE baseline against reward and the reward variance, entropy of α,
/// gradient norm, learning rate, throughput) plus the per-epoch validation scores (BLEU-4,
/// CIDEr-D, pointing accuracy). Several runs overlay, one colour per run; a live run appends
/// records as they arrive, a past run is loaded from its RunLog. The charts themselves, made and
/// placed lazily, are ChartGrid's; the dashboard owns the runs, their curves and their markers.
#include <QColor>
#include <QMap>
#include <QWidget>

#include "core/train/run_log.h"
#include "core/train/train_records.h"

namespace fovea::ui {

class ChartGrid;
class MetricChart;
struct RunCurves;

class TrainingDashboard : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingDashboard(QWidget* parent = nullptr);

  /// Adds a run's curves (no points yet). `id` is the run folder.
  void addRun(const QString& id, const QString& name, bool hard);
  void removeRun(const QString& id);
  /// Gives run `id` its colour now (the next unused one), if it has none yet: runs whose curves
  /// arrive later, from a reading thread, keep the colours of the order the user ticked them in.
  void reserveColour(const QString& id);
  bool hasRun(const QString& id) const { return runs_.contains(id); }
  /// Replaces a run's curves with what its folder holds.
  void loadRun(const fovea::RunLog& log);
  /// The same from curves built beforehand (ui/charts/run_curves.h: on the thread that read the log).
  void loadCurves(const RunCurves& run);

  void addTrainRecord(const QString& id, const fovea::TrainRecord& r);
  void addValidationRecord(const QString& id, const fovea::ValidationRecord& v);
  /// Encoder pretraining, on its own chart (x: pretraining step; it comes before step 1).
  void addPretrainRecord(const QString& id, const fovea::PretrainRecord& p);
  /// A skipped or rolled-back non-finite step, or a loss spike: a marker at its step on the loss,
  /// gradient-norm and learning-rate charts, its message as the marker's tooltip.
  void addEvent(const QString& id, const fovea::TrainEvent& e);
  /// The steps of a run's markers (its events, in order).
  QVector<double> eventSteps(const QString& id) const;

  void setSmoothing(double weight);
  void setLogScale(bool on);
  void resetZoom();

  /// Charts by name: loss, penalty, reinforce, reward_var, entropy, grad_norm, lr, throughput,
  /// bleu4, cider, pointing, supervision, pretraining.
  /// The charts are made one per event-loop turn after the dashboard is (a QChart each: tens of
  /// milliseconds for all); asking for one, or for a run's curves, makes the rest at once.
  MetricChart* chart(const QString& name) const;
  QStringList chartNames() const;
  /// The charts shown, in grid order: those that apply to the runs shown (REINFORCE charts with a
  /// hard run, the pretraining chart once a run has pretraining points), all before any run.
  QStringList shownCharts() const;
  int columns() const;  ///< charts per row: as many as fit the width, 1 to 3
  QColor runColour(const QString& id) const;
  /// Raw points of one run's metric (e.g. "nll", "reward", "bleu4", "item_accuracy"), 0 when it
  /// has no such curve.
  int pointCount(const QString& id, const QString& metric) const;
  QVector<QPointF> points(const QString& id, const QString& metric) const;

 Q_SIGNALS:
  void hovered(const QString& readout);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  /// Charts placed while the dashboard was hidden start showing, one per turn.
  void showEvent(QShowEvent* event) override;
  /// The first paint starts making and showing the charts: the window's first frame holds none.
  void paintEvent(QPaintEvent* event) override;

 private:
  struct Curve {
    QString chart, metric, label;
    bool dashed = false;
    bool hard_only = false;
  };
  struct Run {
    QString name;
    bool hard = false;
    QColor colour;
  };
  void appendValue(const QString& id, const QString& metric, double step, double value);
  void setCurve(const QString& id, const QString& metric, const QVector<QPointF>& points);
  /// Legends name runs by what tells them apart (runs_ changed).
  void relabel();
  /// Draws run `id`'s events_ as markers.
  void showEvents(const QString& id);

  ChartGrid* grid_;  ///< the charts: made lazily, placed and shown
  QList<Curve> curves_;
  QMap<QString, Run> runs_;
  QMap<QString, QColor> colours_;  ///< every run shown so far, removed or not
  QMap<QString, QVector<QPair<double, QString>>> events_;  ///< per run: step and message
  int next_colour_ = 0;
};

}  // namespace fovea::ui
