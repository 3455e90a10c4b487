#include "ui/common/region_drag.h"

#include <QMouseEvent>
#include <QWidget>

#include <algorithm>

#include "ui/common/image_placement.h"

namespace fovea::ui {

RegionDrag::RegionDrag(QWidget* view, std::function<ImagePlacement()> placement, std::function<bool()> can_select,
                       std::function<bool()> can_dismiss)
    : QObject(view),
      view_(view),
      placement_(std::move(placement)),
      can_select_(std::move(can_select)),
      can_dismiss_(std::move(can_dismiss)) {
  view->installEventFilter(this);
}

QRect RegionDrag::dragRect() const { return dragging_ ? QRect(from_, to_).normalized() : QRect(); }

bool RegionDrag::eventFilter(QObject* watched, QEvent* event) {
  if (watched != view_) return false;
  switch (event->type()) {
    case QEvent::MouseButtonPress: return press(static_cast<const QMouseEvent&>(*event));
    case QEvent::MouseMove: return move(static_cast<const QMouseEvent&>(*event));
    case QEvent::MouseButtonRelease: return release(static_cast<const QMouseEvent&>(*event));
    default: return false;
  }
}

bool RegionDrag::press(const QMouseEvent& event) {
  if (event.button() == Qt::RightButton && can_dismiss_()) {
    Q_EMIT dismissRequested();
    return true;
  }
  const ImagePlacement placement = placement_();
  if (event.button() != Qt::LeftButton || !can_select_() || !placement.rect.contains(event.position().toPoint())) return false;
  dragging_ = true;
  from_ = to_ = event.position().toPoint();
  press_image_ = placement.imagePoint(from_);
  return true;
}

bool RegionDrag::move(const QMouseEvent& event) {
  if (!dragging_) return false;
  const QRect r = placement_().rect;
  const QPoint p = event.position().toPoint();
  to_ = QPoint(std::clamp(p.x(), r.left(), r.right() + 1), std::clamp(p.y(), r.top(), r.bottom() + 1));
  view_->update();
  return true;
}

bool RegionDrag::release(const QMouseEvent& event) {
  if (!dragging_ || event.button() != Qt::LeftButton) return false;
  // A click or a drag by how far the pointer moved, not by where the image is now: the layout may
  // have moved the image under a still pointer. The region starts where the press was in the image.
  const bool click = (event.position().toPoint() - from_).manhattanLength() < 5;
  move(event);
  dragging_ = false;
  view_->update();
  const ImagePlacement placement = placement_();
  fovea::ProbeRegion region;
  if (click) {
    region.point = true;
    region.x0 = region.x1 = std::min(press_image_.x(), placement.image.width() - 1.0);
    region.y0 = region.y1 = std::min(press_image_.y(), placement.image.height() - 1.0);
  } else {
    const QPointF to = placement.imagePoint(to_);
    region.x0 = std::min(press_image_.x(), to.x());
    region.x1 = std::max(press_image_.x(), to.x());
    region.y0 = std::min(press_image_.y(), to.y());
    region.y1 = std::max(press_image_.y(), to.y());
  }
  Q_EMIT regionSelected(region);
  return true;
}

}  // namespace fovea::ui
