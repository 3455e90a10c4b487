#include "ui/charts/chart_markers.h"

#include <QtCharts/QChart>
#include <QtCharts/QValueAxis>

#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QPen>

#include "ui/charts/chart_axes.h"

namespace fovea::ui {

ChartMarkers::ChartMarkers(QChart* chart, const ChartAxes* axes, QObject* parent)
    : QObject(parent), chart_(chart), axes_(axes) {}

void ChartMarkers::set(const QString& group, const QColor& color, const QVector<QPair<double, QString>>& markers) {
  for (auto it = markers_.begin(); it != markers_.end();) {
    if (it->group != group) {
      ++it;
      continue;
    }
    chart_->scene()->removeItem(it->line);
    delete it->line;
    it = markers_.erase(it);
  }
  for (const auto& [step, label] : markers) {
    auto* line = new QGraphicsLineItem;
    QColor c = color;
    c.setAlpha(200);
    line->setPen(QPen(c, 1.4, Qt::DotLine));
    line->setZValue(1e5);  // over the curves, under the crosshair
    line->setToolTip(label);
    line->hide();  // placed at the next redraw
    chart_->scene()->addItem(line);
    markers_.push_back({group, step, line});
  }
  Q_EMIT changed();
}

QVector<double> ChartMarkers::steps() const {
  QVector<double> steps;
  for (const auto& m : markers_) steps.append(m.step);
  return steps;
}

void ChartMarkers::place() {
  const QRectF plot = chart_->plotArea();
  const double x0 = axes_->x()->min(), x1 = axes_->x()->max();
  for (auto& m : markers_) {
    const bool shown = plot.width() > 0 && x1 > x0 && m.step >= x0 && m.step <= x1;
    m.line->setVisible(shown);
    if (!shown) continue;
    const double x = plot.left() + (m.step - x0) / (x1 - x0) * plot.width();
    m.line->setLine(QLineF(chart_->mapToScene(QPointF(x, plot.top())), chart_->mapToScene(QPointF(x, plot.bottom()))));
  }
}

}  // namespace fovea::ui
