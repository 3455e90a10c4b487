#include "ui/common/attention_view.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QPainter>

#include <algorithm>

#include "ui/common/image_convert.h"
#include "ui/common/image_placement.h"
#include "ui/common/region_drag.h"

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
  drag_ = new RegionDrag(this, [this] { return placement(); }, [this] { return has_caption_; },
                         [this] { return probe_active_ || removal_active_; });
  connect(drag_, &RegionDrag::regionSelected, this, &AttentionView::regionSelected);
  connect(drag_, &RegionDrag::dismissRequested, this, &AttentionView::dismissRequested);
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
  drag_->cancel();
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

void AttentionView::setPlaceholder(const QString& text) {
  placeholder_ = text;
  update();
}

QSize AttentionView::fittedImageSize() const {
  return image_.isNull() ? QSize() : ImagePlacement::fittedSize(image_.size(), size());
}

void AttentionView::setImageSizeLimit(const QSize& limit) {
  if (limit == size_limit_) return;
  size_limit_ = limit;
  dirty_ = true;
  update();
}

ImagePlacement AttentionView::placement() const {
  return image_.isNull() ? ImagePlacement{} : ImagePlacement::in(image_.size(), size(), size_limit_);
}

QRect AttentionView::imageRect() const { return placement().rect; }

void AttentionView::rebuild() {
  const QRect r = placement().rect;
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
  if (dirty_ || base_size_ != placement().rect.size()) rebuild();
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
  if (dirty_ || base_size_ != placement().rect.size()) rebuild();
  const ImagePlacement placed = placement();
  p.drawImage(placed.rect.topLeft(), frame_image_);
  const auto cell_rect = [&](int cell) { return placed.cellRect(cell, caption_.grid_w, caption_.grid_h); };
  // The probed region (dashed), or a point's cross; the rectangle being dragged.
  if (probe_active_) {
    p.setPen(QPen(Qt::white, 1.5, Qt::DashLine));
    const QRectF box = placed.screenRect(probe_region_);
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
      p.fillRect(cell_rect(c), QColor(255, 80, 80, 80));
      p.fillRect(cell_rect(c), QBrush(QColor(255, 80, 80, 170), Qt::BDiagPattern));
    }
    p.setPen(QPen(QColor(255, 80, 80), 1.5));
    for (int c : removed_cells_) p.drawRect(cell_rect(c));
    p.setPen(QPen(QColor(80, 200, 255), 1.5, Qt::DashLine));
    for (int c : control_cells_) p.drawRect(cell_rect(c));
  }
  if (const QRect dragged = drag_->dragRect(); !dragged.isNull()) {
    p.setPen(QPen(Qt::white, 1.5, Qt::DashLine));
    p.drawRect(dragged);
  }
  // A hard model's sampled glimpse: outline the cell it looked at.
  if (!probe_active_ && !removal_active_ && has_caption_ && word_ >= 0 && caption_.words[word_].glimpse >= 0) {
    p.setPen(QPen(Qt::white, 2));
    p.drawRect(cell_rect(int(caption_.words[word_].glimpse)));
  }
}

void AttentionView::resizeEvent(QResizeEvent*) {
  dirty_ = true;
  frames_.clear();
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
