#pragma once
/// Objects on a plain background, found without a model: the pixels brighter than the image's
/// background colour, grouped into connected segments. For the built-in fashion scenes (tinted
/// items on one grey) each segment is one garment (docs/attention.md, "Glimpses"); the glimpse
/// classifier looks at each segment alone. No Qt, no torch.
#include <vector>

#include "core/image.h"

namespace fovea {

struct ObjectSegment {
  /// Bounding box (x1, y1 exclusive) of its pixels brighter than a tenth of its brightest (above
  /// the background): without the faint halo resampling leaves, as the built-in scenes' boxes.
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  std::vector<int> pixels;              ///< y * width + x of each of its pixels
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
};

struct SegmentOptions {
  int reach = 1;        ///< pixels up to this far apart (Chebyshev) belong to one segment
  int min_pixels = 12;  ///< smaller segments are specks, dropped
  /// Segments wider or taller than this are dropped (not one object: several touching, or a
  /// photograph's textured background); 0 = no limit.
  int max_side = 0;
  /// Segments whose boxes are at most this many px apart are joined when the box around both
  /// stays within merge_side (a garment whose dark parts, below the background, split it);
  /// 0 = never.
  int merge_gap = 0;
  int merge_side = 0;
  /// Images whose background colour covers less than this share of the pixels have no plain
  /// background: no segments.
  double min_background_share = 0.3;
};

/// The most frequent grey level of the image (the red channel of its most frequent pixel value):
/// the built-in scenes' background.
int background_level(const RgbImage& image);

/// Share of the pixels whose three channels all equal `level`.
double background_share(const RgbImage& image, int level);

/// The image's objects: 8-connected (within options.reach) pixels whose brightest channel is
/// above the background level, largest first.
std::vector<ObjectSegment> segment_objects(const RgbImage& image, const SegmentOptions& options = {});

/// The segment cut out onto a canvas of side `canvas` filled with the image's background, centred
/// on the segment's box (moved by `shift_x`, `shift_y` px: a shifted view), everything but the
/// segment's own pixels left as background; then mirrored left-right when `mirror`. Also returns,
/// through `box`, where the segment lies on the canvas.
RgbImage cut_out(const RgbImage& image, const ObjectSegment& segment, int canvas, bool mirror, int background,
                 int box[4] = nullptr, int shift_x = 0, int shift_y = 0);

}  // namespace fovea
