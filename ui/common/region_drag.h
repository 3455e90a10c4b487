#pragma once
/// Asking the attention view about a region: a drag of the left button over the image selects a
/// rectangle (a click, a point), in image pixels; a right-click puts the word's own α back while
/// a probe or a take-away is shown. Watches the view's mouse events (an event filter) and says
/// what the view should draw of the drag.
#include <QObject>
#include <QPoint>
#include <QPointF>
#include <QRect>

#include <functional>

#include "core/decode/probe.h"

class QMouseEvent;
class QWidget;

namespace fovea::ui {

struct ImagePlacement;

class RegionDrag : public QObject {
  Q_OBJECT
 public:
  /// Watches `view`. `placement` says where its image is drawn; `can_select`, whether a region
  /// may be asked about now (the image is captioned); `can_dismiss`, whether something shown
  /// would be put away by a right-click.
  RegionDrag(QWidget* view, std::function<ImagePlacement()> placement, std::function<bool()> can_select,
             std::function<bool()> can_dismiss);

  /// The rectangle being dragged, in widget points; empty when no drag is under way.
  QRect dragRect() const;
  /// Drops a drag under way (the caption it would ask about went).
  void cancel() { dragging_ = false; }

 Q_SIGNALS:
  void regionSelected(const fovea::ProbeRegion& region);
  void dismissRequested();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  bool press(const QMouseEvent& event);
  bool move(const QMouseEvent& event);
  bool release(const QMouseEvent& event);

  QWidget* view_;
  std::function<ImagePlacement()> placement_;
  std::function<bool()> can_select_, can_dismiss_;
  QPoint from_, to_;
  QPointF press_image_;  ///< where the drag began, in image pixels (the layout may move the image meanwhile)
  bool dragging_ = false;
};

}  // namespace fovea::ui
