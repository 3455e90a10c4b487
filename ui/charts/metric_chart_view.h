#pragma once
/// MetricChart's view (private to metric_chart.cpp): Qt Charts' view with rubber-band zoom, where a
/// click is not a zoom, a double click resets, the crosshair follows the mouse, and the right
/// button opens the chart's menu instead of zooming out.
#include <QtCharts/QChartView>

#include <QMouseEvent>
#include <QRubberBand>

#include "ui/charts/chart_crosshair.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/metric_chart.h"

namespace fovea::ui {

/// The chart view: rubber band zoom, double click resets, crosshair on hover, context menu.
class MetricChart::View : public QChartView {
 public:
  static constexpr int kMinDragPx = 6;  ///< a shorter rubber band drag is a click, not a zoom

  View(QChart* chart, MetricChart* owner) : QChartView(chart, owner), owner_(owner) {
    setRubberBand(QChartView::RectangleRubberBand);
    setRenderHint(QPainter::Antialiasing);
    setFrameShape(QFrame::NoFrame);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    viewport()->installEventFilter(this);  // QAbstractScrollArea does not hand the viewport's Leave on
  }

  /// The crosshair that follows the mouse (made after the view, on its viewport).
  void setCrosshair(ChartCrosshair* crosshair) { crosshair_ = crosshair; }

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == viewport() && event->type() == QEvent::Leave && crosshair_) crosshair_->leave();
    return QChartView::eventFilter(watched, event);
  }

 protected:
  void mousePressEvent(QMouseEvent* event) override {
    if (event->button() == Qt::LeftButton) press_pos_ = event->position().toPoint();
    QChartView::mousePressEvent(event);
  }

  void mouseMoveEvent(QMouseEvent* event) override {
    QChartView::mouseMoveEvent(event);
    if (crosshair_) crosshair_->hoverAt(event->position());
  }

  void mouseReleaseEvent(QMouseEvent* event) override {
    if (event->button() == Qt::RightButton) {  // QChartView would zoom out; the context menu is ours
      event->accept();
      return;
    }
    const bool click = (event->position().toPoint() - press_pos_).manhattanLength() < kMinDragPx;
    if (event->button() == Qt::LeftButton && click) {
      if (auto* band = findChild<QRubberBand*>()) band->hide();
      event->accept();
      return;
    }
    QChartView::mouseReleaseEvent(event);
  }

  void mouseDoubleClickEvent(QMouseEvent* event) override {
    if (event->button() != Qt::LeftButton) return QChartView::mouseDoubleClickEvent(event);
    owner_->resetZoom();
    event->accept();
  }

  void leaveEvent(QEvent* event) override {
    if (crosshair_) crosshair_->leave();
    QChartView::leaveEvent(event);
  }

  void contextMenuEvent(QContextMenuEvent* event) override {
    owner_->exports()->showMenu(event->globalPos());
    event->accept();
  }

 private:
  MetricChart* owner_;
  ChartCrosshair* crosshair_ = nullptr;
  QPoint press_pos_;
};

}  // namespace fovea::ui
