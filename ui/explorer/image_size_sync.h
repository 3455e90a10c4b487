#pragma once
/// Two panels side by side show the image at the same size: the smaller of the two sizes each
/// view could fit, whatever the text above and below each one takes. Follows the views' resizes.
#include <QObject>

namespace fovea::ui {

class AttentionView;

class ImageSizeSync : public QObject {
  Q_OBJECT
 public:
  ImageSizeSync(AttentionView* first, AttentionView* second, QObject* parent = nullptr);
  /// Sets both views' limits now (call after an image or a panel is shown or hidden).
  void sync();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  AttentionView* first_;
  AttentionView* second_;
};

}  // namespace fovea::ui
