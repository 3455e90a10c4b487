#include "ui/explorer/image_size_sync.h"

#include <QEvent>

#include "ui/common/attention_view.h"

namespace fovea::ui {

ImageSizeSync::ImageSizeSync(AttentionView* first, AttentionView* second, QObject* parent)
    : QObject(parent), first_(first), second_(second) {
  first_->installEventFilter(this);
  second_->installEventFilter(this);
}

bool ImageSizeSync::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Resize || event->type() == QEvent::Show || event->type() == QEvent::Hide) sync();
  return QObject::eventFilter(watched, event);
}

void ImageSizeSync::sync() {
  const bool both = first_->isVisible() && second_->isVisible() && !first_->image().isNull() && !second_->image().isNull();
  if (!both) {
    first_->setImageSizeLimit({});
    second_->setImageSizeLimit({});
    return;
  }
  const QSize a = first_->fittedImageSize(), b = second_->fittedImageSize();
  const QSize limit = a.width() * a.height() <= b.width() * b.height() ? a : b;
  first_->setImageSizeLimit(limit);
  second_->setImageSizeLimit(limit);
}

}  // namespace fovea::ui
