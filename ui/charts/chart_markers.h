#pragma once
/// A MetricChart's markers: vertical dotted lines at steps where something happened (a skipped
/// non-finite step, a rollback), each with its label as tooltip, in groups (e.g. one per run)
/// that are replaced whole. Placed across the plot at each redraw, and drawn in the exports too.
#include <QColor>
#include <QObject>
#include <QPair>
#include <QString>
#include <QVector>

#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QGraphicsLineItem;
QT_END_NAMESPACE

namespace fovea::ui {

class ChartAxes;

class ChartMarkers : public QObject {
  Q_OBJECT
 public:
  /// Markers drawn in `chart`'s scene, at steps of `axes`' x axis.
  ChartMarkers(QChart* chart, const ChartAxes* axes, QObject* parent);

  /// `group`'s markers (step, label) in `color`, replacing its previous ones; none removes them.
  void set(const QString& group, const QColor& color, const QVector<QPair<double, QString>>& markers);
  QVector<double> steps() const;  ///< of every group, in no particular order
  /// Puts each marker's line at its step, across the plot; hidden when the step is off the x axis.
  void place();

 Q_SIGNALS:
  /// The markers changed: the chart should redraw.
  void changed();

 private:
  struct Marker {
    QString group;
    double step = 0;
    QGraphicsLineItem* line = nullptr;  ///< owned by the chart's scene
  };

  QChart* chart_;
  const ChartAxes* axes_;
  std::vector<Marker> markers_;
};

}  // namespace fovea::ui
