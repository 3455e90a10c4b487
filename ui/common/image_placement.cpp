#include "ui/common/image_placement.h"

#include <algorithm>

namespace fovea::ui {

QSize ImagePlacement::fittedSize(const QSize& image, const QSize& widget) {
  if (image.isEmpty()) return {};
  return image.scaled((widget - QSize(8, 8)).expandedTo(QSize(1, 1)), Qt::KeepAspectRatio);
}

ImagePlacement ImagePlacement::in(const QSize& image, const QSize& widget, const QSize& limit) {
  if (image.isEmpty()) return {{}, image};
  QSize s = fittedSize(image, widget);
  if (limit.isValid() && (s.width() > limit.width() || s.height() > limit.height())) s = image.scaled(limit, Qt::KeepAspectRatio);
  // Beside another panel (a size limit is set), the image hangs from the top: the two panels' strips
  // under it differ in height, and centred images would sit at different heights side by side.
  const int top = limit.isValid() ? 0 : (widget.height() - s.height()) / 2;
  return {QRect(QPoint((widget.width() - s.width()) / 2, top), s), image};
}

QPointF ImagePlacement::imagePoint(const QPoint& p) const {
  if (rect.isEmpty()) return {};
  const double x = (p.x() - rect.left()) * double(image.width()) / rect.width();
  const double y = (p.y() - rect.top()) * double(image.height()) / rect.height();
  return {std::clamp(x, 0.0, double(image.width())), std::clamp(y, 0.0, double(image.height()))};
}

fovea::ProbeRegion ImagePlacement::regionBetween(const QPoint& from, const QPoint& to) const {
  fovea::ProbeRegion region;
  if (rect.isEmpty()) return region;
  const QPointF a = imagePoint(QPoint(std::min(from.x(), to.x()), std::min(from.y(), to.y())));
  const QPointF b = imagePoint(QPoint(std::max(from.x(), to.x()), std::max(from.y(), to.y())));
  if ((to - from).manhattanLength() < 5) {
    const QPointF p = imagePoint(from);
    region.point = true;
    region.x0 = region.x1 = std::min(p.x(), image.width() - 1.0);
    region.y0 = region.y1 = std::min(p.y(), image.height() - 1.0);
    return region;
  }
  region.x0 = a.x(), region.x1 = b.x(), region.y0 = a.y(), region.y1 = b.y();
  return region;
}

QRectF ImagePlacement::screenRect(const fovea::ProbeRegion& region) const {
  const double sx = double(rect.width()) / image.width(), sy = double(rect.height()) / image.height();
  return QRectF(rect.left() + region.x0 * sx, rect.top() + region.y0 * sy, (region.x1 - region.x0) * sx,
                (region.y1 - region.y0) * sy);
}

QRectF ImagePlacement::cellRect(int cell, int grid_w, int grid_h) const {
  if (grid_w <= 0 || grid_h <= 0) return {};
  const double cw = double(rect.width()) / grid_w, ch = double(rect.height()) / grid_h;
  return QRectF(rect.left() + (cell % grid_w) * cw, rect.top() + (cell / grid_w) * ch, cw, ch);
}

}  // namespace fovea::ui
