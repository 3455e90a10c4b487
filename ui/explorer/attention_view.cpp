#include "ui/explorer/attention_view.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QMimeData>
#include <QPainter>

#include <algorithm>

#include "ui/explorer/image_convert.h"

namespace fovea::ui {

AttentionView::AttentionView(QWidget* parent) : QWidget(parent) {
  setAcceptDrops(true);
  setMinimumSize(160, 160);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  placeholder_ = tr("Drop an image here, or use File \u25B8 Open Image");
}

void AttentionView::setImage(const QImage& image) {
  image_ = image;
  base_size_ = QSize();
  dirty_ = true;
  frames_.clear();
  update();
}

void AttentionView::setCaption(const fovea::CaptionResult& caption) {
  caption_ = caption;
  has_caption_ = true;
  word_ = std::min(word_, int(caption_.words.size()) - 1);
  dirty_ = true;
  frames_.clear();
  update();
}

void AttentionView::clearCaption() {
  has_caption_ = false;
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

void AttentionView::setPlaceholder(const QString& text) {
  placeholder_ = text;
  update();
}

QRect AttentionView::targetRect() const {
  if (image_.isNull()) return {};
  const QSize s = image_.size().scaled(size() - QSize(8, 8), Qt::KeepAspectRatio);
  return QRect(QPoint((width() - s.width()) / 2, (height() - s.height()) / 2), s);
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
  if (auto it = frames_.constFind(word_); it != frames_.constEnd()) {
    frame_image_ = *it;
    return;
  }
  QElapsedTimer timer;
  timer.start();
  if (has_caption_ && word_ >= 0 && word_ < int(caption_.words.size())) {
    fovea::render_overlay_into(base_, caption_.words[word_].alpha, caption_.grid_h, caption_.grid_w, style_, frame_);
  } else {
    frame_ = base_;
  }
  frame_image_ = QImage(frame_.pixels.data(), frame_.width, frame_.height, frame_.width * 3, QImage::Format_RGB888)
                     .convertToFormat(QImage::Format_RGB32);
  if (frames_.size() >= 64) frames_.clear();
  frames_.insert(word_, frame_image_);
  last_render_ms_ = timer.nsecsElapsed() / 1e6;
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
  // A hard model's sampled glimpse: outline the cell it looked at.
  if (has_caption_ && word_ >= 0 && caption_.words[word_].glimpse >= 0 && caption_.grid_w > 0) {
    const long long g = caption_.words[word_].glimpse;
    const double cw = double(r.width()) / caption_.grid_w, ch = double(r.height()) / caption_.grid_h;
    const QRectF cell(r.left() + (g % caption_.grid_w) * cw, r.top() + (g / caption_.grid_w) * ch, cw, ch);
    p.setPen(QPen(Qt::white, 2));
    p.drawRect(cell);
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
