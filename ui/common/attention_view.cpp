#include "ui/common/attention_view.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

#include "ui/common/image_convert.h"

namespace fovea::ui {

namespace {
constexpr int kProbeFrame = -2;    ///< frames_ key of the probe's forced α
constexpr int kRemovalFrame = -3;  ///< frames_ key of the image with cells taken away
}  // namespace

AttentionView::AttentionView(QWidget* parent) : QWidget(parent) {
  setAcceptDrops(true);
  setMinimumSize(160, 160);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  placeholder_ = tr("Drop an image here, or use File \u25B8 Open Image");
}

void AttentionView::setImage(const QImage& image) {
  image_ = image;
  probe_active_ = false;
  removal_active_ = false;
  base_size_ = QSize();
  dirty_ = true;
  frames_.clear();
  update();
}

void AttentionView::setCaption(const fovea::CaptionResult& caption) {
  caption_ = caption;
  has_caption_ = true;
  probe_active_ = false;
  removal_active_ = false;
  setCursor(Qt::CrossCursor);
  setToolTip(tr("Drag a rectangle or click: what would the model say looking there?"));
  word_ = std::min(word_, int(caption_.words.size()) - 1);
  dirty_ = true;
  frames_.clear();
  update();
}

void AttentionView::clearCaption() {
  has_caption_ = false;
  probe_active_ = false;
  removal_active_ = false;
  dragging_ = false;
  unsetCursor();
  setToolTip(QString());
  caption_ = {};
  word_ = -1;
  dirty_ = true;
  frames_.clear();
  update();
}

void AttentionView::setWordIndex(int index) {
  const int n = has_caption_ ? int(caption_.words.size()) : 0;
  index = n == 0 ? -1 : std::clamp(index, -1, n - 1);
  if (index == word_) return;
  word_ = index;
  dirty_ = true;
  update();
}

void AttentionView::setOverlayStyle(const fovea::OverlayStyle& style) {
  style_ = style;
  dirty_ = true;
  frames_.clear();
  update();
}

void AttentionView::setProbe(const std::vector<float>& alpha, const fovea::ProbeRegion& region) {
  probe_active_ = true;
  removal_active_ = false;
  probe_alpha_ = alpha;
  probe_region_ = region;
  frames_.remove(kProbeFrame);
  dirty_ = true;
  update();
}

void AttentionView::setRemoval(const QImage& image, const std::vector<int>& removed, const std::vector<int>& control) {
  removal_active_ = true;
  probe_active_ = false;
  removal_image_ = image;
  removed_cells_ = removed;
  control_cells_ = control;
  frames_.remove(kRemovalFrame);
  dirty_ = true;
  update();
}

void AttentionView::clearRemoval() {
  if (!removal_active_) return;
  removal_active_ = false;
  frames_.remove(kRemovalFrame);
  dirty_ = true;
  update();
}

void AttentionView::clearProbe() {
  if (!probe_active_) return;
  probe_active_ = false;
  frames_.remove(kProbeFrame);
  dirty_ = true;
  update();
}

fovea::ProbeRegion AttentionView::regionBetween(const QPoint& from, const QPoint& to) const {
  const QRect r = targetRect();
  fovea::ProbeRegion region;
  if (r.isEmpty()) return region;
  const double sx = double(image_.width()) / r.width(), sy = double(image_.height()) / r.height();
  const auto image_x = [&](int x) { return std::clamp((x - r.left()) * sx, 0.0, double(image_.width())); };
  const auto image_y = [&](int y) { return std::clamp((y - r.top()) * sy, 0.0, double(image_.height())); };
  if ((to - from).manhattanLength() < 5) {
    region.point = true;
    region.x0 = region.x1 = std::min(image_x(from.x()), image_.width() - 1.0);
    region.y0 = region.y1 = std::min(image_y(from.y()), image_.height() - 1.0);
    return region;
  }
  region.x0 = image_x(std::min(from.x(), to.x()));
  region.x1 = image_x(std::max(from.x(), to.x()));
  region.y0 = image_y(std::min(from.y(), to.y()));
  region.y1 = image_y(std::max(from.y(), to.y()));
  return region;
}

QRectF AttentionView::screenRect(const fovea::ProbeRegion& region) const {
  const QRect r = targetRect();
  const double sx = double(r.width()) / image_.width(), sy = double(r.height()) / image_.height();
  return QRectF(r.left() + region.x0 * sx, r.top() + region.y0 * sy, (region.x1 - region.x0) * sx,
                (region.y1 - region.y0) * sy);
}

QRectF AttentionView::cellRect(int cell) const {
  const QRect r = targetRect();
  if (caption_.grid_w <= 0 || caption_.grid_h <= 0) return {};
  const double cw = double(r.width()) / caption_.grid_w, ch = double(r.height()) / caption_.grid_h;
  return QRectF(r.left() + (cell % caption_.grid_w) * cw, r.top() + (cell / caption_.grid_w) * ch, cw, ch);
}

void AttentionView::setPlaceholder(const QString& text) {
  placeholder_ = text;
  update();
}

QSize AttentionView::fittedImageSize() const {
  if (image_.isNull()) return {};
  return image_.size().scaled((size() - QSize(8, 8)).expandedTo(QSize(1, 1)), Qt::KeepAspectRatio);
}

void AttentionView::setImageSizeLimit(const QSize& limit) {
  if (limit == size_limit_) return;
  size_limit_ = limit;
  dirty_ = true;
  update();
}

QRect AttentionView::targetRect() const {
  if (image_.isNull()) return {};
  QSize s = fittedImageSize();
  if (size_limit_.isValid() && (s.width() > size_limit_.width() || s.height() > size_limit_.height()))
    s = image_.size().scaled(size_limit_, Qt::KeepAspectRatio);
  // Beside another panel (a size limit is set), the image hangs from the top: the two panels' strips
  // under it differ in height, and centred images would sit at different heights side by side.
  const int top = size_limit_.isValid() ? 0 : (height() - s.height()) / 2;
  return QRect(QPoint((width() - s.width()) / 2, top), s);
}

QPointF AttentionView::imagePoint(const QPoint& p) const {
  const QRect r = targetRect();
  if (r.isEmpty()) return {};
  const double x = (p.x() - r.left()) * double(image_.width()) / r.width();
  const double y = (p.y() - r.top()) * double(image_.height()) / r.height();
  return {std::clamp(x, 0.0, double(image_.width())), std::clamp(y, 0.0, double(image_.height()))};
}

void AttentionView::rebuild() {
  const QRect r = targetRect();
  if (r.isEmpty()) return;
  if (base_size_ != r.size()) {
    base_ = to_rgb(image_.scaled(r.size(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation));
    base_size_ = r.size();
    frames_.clear();
  }
  // An animation loops over the same words: each word's frame is composed once per size, caption
  // and style, then only blitted (already in the backing store's format).
  dirty_ = false;
  const int key = removal_active_ ? kRemovalFrame : probe_active_ ? kProbeFrame : word_;
  if (auto it = frames_.constFind(key); it != frames_.constEnd()) {
    frame_image_ = *it;
    return;
  }
  if (removal_active_) {
    frame_ = to_rgb(removal_image_.scaled(r.size(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation));
  } else if (probe_active_ && probe_alpha_.size() == std::size_t(caption_.grid_h) * std::size_t(caption_.grid_w)) {
    fovea::render_overlay_into(base_, probe_alpha_, caption_.grid_h, caption_.grid_w, style_, frame_);
  } else if (has_caption_ && word_ >= 0 && word_ < int(caption_.words.size())) {
    fovea::render_overlay_into(base_, caption_.words[word_].alpha, caption_.grid_h, caption_.grid_w, style_, frame_);
  } else {
    frame_ = base_;
  }
  frame_image_ = QImage(frame_.pixels.data(), frame_.width, frame_.height, frame_.width * 3, QImage::Format_RGB888)
                     .convertToFormat(QImage::Format_RGB32);
  if (frames_.size() >= 64) frames_.clear();
  frames_.insert(key, frame_image_);
}

QImage AttentionView::renderedFrame() {
  if (dirty_ || base_size_ != targetRect().size()) rebuild();
  return frame_image_.copy();
}

void AttentionView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base).darker(108));
  if (image_.isNull()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
    return;
  }
  if (dirty_ || base_size_ != targetRect().size()) rebuild();
  const QRect r = targetRect();
  p.drawImage(r.topLeft(), frame_image_);
  // The probed region (dashed), or a point's cross; the rectangle being dragged.
  if (probe_active_) {
    p.setPen(QPen(Qt::white, 1.5, Qt::DashLine));
    const QRectF box = screenRect(probe_region_);
    if (probe_region_.point) {
      p.drawLine(box.topLeft() + QPointF(-8, 0), box.topLeft() + QPointF(8, 0));
      p.drawLine(box.topLeft() + QPointF(0, -8), box.topLeft() + QPointF(0, 8));
    } else {
      p.drawRect(box);
    }
  }
  // Taken away: the removed cells shaded (a red wash and hatching over their background fill) and
  // outlined, so that a cell kept among them still shows as kept and not as part of the removed
  // block; the control cells (removed in the other image) dashed.
  if (removal_active_) {
    for (int c : removed_cells_) {
      p.fillRect(cellRect(c), QColor(255, 80, 80, 80));
      p.fillRect(cellRect(c), QBrush(QColor(255, 80, 80, 170), Qt::BDiagPattern));
    }
    p.setPen(QPen(QColor(255, 80, 80), 1.5));
    for (int c : removed_cells_) p.drawRect(cellRect(c));
    p.setPen(QPen(QColor(80, 200, 255), 1.5, Qt::DashLine));
    for (int c : control_cells_) p.drawRect(cellRect(c));
  }
  if (dragging_) {
    p.setPen(QPen(Qt::white, 1.5, Qt::DashLine));
    p.drawRect(QRect(drag_from_, drag_to_).normalized());
  }
  // A hard model's sampled glimpse: outline the cell it looked at.
  if (!probe_active_ && !removal_active_ && has_caption_ && word_ >= 0 && caption_.words[word_].glimpse >= 0) {
    p.setPen(QPen(Qt::white, 2));
    p.drawRect(cellRect(int(caption_.words[word_].glimpse)));
  }
}

void AttentionView::resizeEvent(QResizeEvent*) {
  dirty_ = true;
  frames_.clear();
}

void AttentionView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::RightButton && (probe_active_ || removal_active_)) {
    Q_EMIT dismissRequested();
    return;
  }
  if (event->button() != Qt::LeftButton || !has_caption_ || !targetRect().contains(event->position().toPoint())) {
    QWidget::mousePressEvent(event);
    return;
  }
  dragging_ = true;
  drag_from_ = drag_to_ = event->position().toPoint();
  press_image_ = imagePoint(drag_from_);
}

void AttentionView::mouseMoveEvent(QMouseEvent* event) {
  if (!dragging_) {
    QWidget::mouseMoveEvent(event);
    return;
  }
  const QRect r = targetRect();
  const QPoint p = event->position().toPoint();
  drag_to_ = QPoint(std::clamp(p.x(), r.left(), r.right() + 1), std::clamp(p.y(), r.top(), r.bottom() + 1));
  update();
}

void AttentionView::mouseReleaseEvent(QMouseEvent* event) {
  if (!dragging_ || event->button() != Qt::LeftButton) {
    QWidget::mouseReleaseEvent(event);
    return;
  }
  // A click or a drag by how far the pointer moved, not by where the image is now: the layout may
  // have moved the image under a still pointer. The region starts where the press was in the image.
  const bool click = (event->position().toPoint() - drag_from_).manhattanLength() < 5;
  mouseMoveEvent(event);
  dragging_ = false;
  update();
  fovea::ProbeRegion region;
  if (click) {
    region.point = true;
    region.x0 = region.x1 = std::min(press_image_.x(), image_.width() - 1.0);
    region.y0 = region.y1 = std::min(press_image_.y(), image_.height() - 1.0);
  } else {
    const QPointF to = imagePoint(drag_to_);
    region.x0 = std::min(press_image_.x(), to.x());
    region.x1 = std::max(press_image_.x(), to.x());
    region.y0 = std::min(press_image_.y(), to.y());
    region.y1 = std::max(press_image_.y(), to.y());
  }
  Q_EMIT regionSelected(region);
}

void AttentionView::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void AttentionView::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) {
      Q_EMIT fileDropped(url.toLocalFile());
      event->acceptProposedAction();
      return;
    }
  }
}

}  // namespace fovea::ui
