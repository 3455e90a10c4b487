#pragma once
/// Where an image is drawn in a widget, and the mapping between the two: a widget point to image
/// pixels, an image region or an attention cell to the screen. A value, made afresh from the
/// widget's geometry when needed (the attention view's layout, its drag selection, its outlines).
#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QSize>

#include "core/decode/probe.h"

namespace fovea::ui {

struct ImagePlacement {
  QRect rect;   ///< where the image is drawn (empty: no image)
  QSize image;  ///< the image's size in pixels

  /// The size an image is drawn at in a widget of `widget`'s size without a limit: fitted, with
  /// its aspect ratio and a small margin.
  static QSize fittedSize(const QSize& image, const QSize& widget);
  /// An image of size `image` in a widget of size `widget`, no larger than `limit` (invalid: no
  /// limit): centred, or, with a limit (beside another panel), hanging from the top.
  static ImagePlacement in(const QSize& image, const QSize& widget, const QSize& limit);

  /// Widget point `p` in image pixels, clamped to the image.
  QPointF imagePoint(const QPoint& p) const;
  /// The image rectangle a drag between two widget points selects, in image pixels; a drag
  /// shorter than 5 pixels is a click (a point).
  fovea::ProbeRegion regionBetween(const QPoint& from, const QPoint& to) const;
  /// `region` (image pixels) on screen.
  QRectF screenRect(const fovea::ProbeRegion& region) const;
  /// Cell `cell` of a grid_w x grid_h attention grid on screen (empty for no grid).
  QRectF cellRect(int cell, int grid_w, int grid_h) const;
};

}  // namespace fovea::ui
