#include "ui/charts/chart_crosshair.h"

#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>

#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QLabel>

#include <algorithm>

#include "ui/charts/chart_axes.h"

namespace fovea::ui {

ChartCrosshair::ChartCrosshair(QChart* chart, QChartView* view, const ChartAxes* axes, Source source)
    : QObject(view), chart_(chart), view_(view), axes_(axes), source_(std::move(source)),
      line_(new QGraphicsLineItem), readout_(new QLabel(view->viewport())) {
  line_->setPen(QPen(QColor(0, 0, 0, 110), 1, Qt::DashLine));
  line_->setZValue(1e6);
  line_->hide();
  chart->scene()->addItem(line_);

  readout_->setAttribute(Qt::WA_TransparentForMouseEvents);
  readout_->setStyleSheet(QStringLiteral(
      "QLabel { background: rgba(255,255,255,215); border: 1px solid rgba(0,0,0,50); border-radius: 3px;"
      " padding: 1px 4px; color: #202020; font-size: 8pt; }"));
  readout_->ensurePolished();
  readout_->hide();
}

void ChartCrosshair::hoverAt(const QPointF& view_pos) {
  const QPointF chart_pos = chart_->mapFromScene(view_->mapToScene(view_pos.toPoint()));
  const QRectF plot = chart_->plotArea();
  if (!source_.has_curves() || !plot.contains(chart_pos) || plot.width() <= 0) return leave();

  pos_ = view_pos;
  shown_ = true;
  const double fraction = (chart_pos.x() - plot.left()) / plot.width();
  const QValueAxis* x = axes_->x();
  const double step = x->min() + fraction * (x->max() - x->min());
  const QPointF top = chart_->mapToScene(QPointF(chart_pos.x(), plot.top()));
  const QPointF bottom = chart_->mapToScene(QPointF(chart_pos.x(), plot.bottom()));
  line_->setLine(QLineF(top, bottom));
  line_->show();

  const QString text = source_.readout(step);
  readout_->setText(readout_->fontMetrics().elidedText(text, Qt::ElideRight, std::max(40, int(plot.width()) - 20)));
  readout_->adjustSize();
  readout_->move(view_->mapFromScene(chart_->mapToScene(plot.topLeft())) + QPoint(6, 4));
  readout_->show();
  if (text != last_) {
    last_ = text;
    Q_EMIT hovered(text);
  }
}

void ChartCrosshair::leave() {
  shown_ = false;
  line_->hide();
  readout_->hide();
  if (!last_.isEmpty()) {
    last_.clear();
    Q_EMIT hovered(QString());
  }
}

void ChartCrosshair::follow() {
  if (shown_) hoverAt(pos_);
}

}  // namespace fovea::ui
