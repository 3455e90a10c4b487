#pragma once
/// The image with the α heatmap of the current word blended over it (core/render/heatmap.h), scaled to
/// fit with its aspect ratio. Accepts dropped image files. Once captioned, dragging a rectangle (or
/// clicking: ui/common/region_drag.h) asks "what would the model say looking here?": regionSelected, then setProbe shows
/// the forced α and the region until the word changes; setRemoval shows the image with the word's
/// attended cells taken away.
#include <QHash>
#include <QImage>
#include <QWidget>

#include "core/decode/caption_result.h"
#include "core/decode/probe.h"
#include "core/render/heatmap.h"

namespace fovea::ui {

struct ImagePlacement;
class RegionDrag;

class AttentionView : public QWidget {
  Q_OBJECT
 public:
  explicit AttentionView(QWidget* parent = nullptr);

  void setImage(const QImage& image);
  void setCaption(const fovea::CaptionResult& caption);
  void clearCaption();
  /// -1 shows the plain image.
  void setWordIndex(int index);
  void setOverlayStyle(const fovea::OverlayStyle& style);
  void setPlaceholder(const QString& text);
  /// Shows `alpha` (the grid's size) instead of the word's α, with `region` (image pixels) outlined.
  void setProbe(const std::vector<float>& alpha, const fovea::ProbeRegion& region);
  void clearProbe();
  bool hasProbe() const { return probe_active_; }
  /// Shows `image` (the picture without `removed`, grid cells) in place of the picture, the
  /// removed cells shaded and outlined and the `control` cells dashed, until the word changes.
  void setRemoval(const QImage& image, const std::vector<int>& removed, const std::vector<int>& control);
  void clearRemoval();
  bool hasRemoval() const { return removal_active_; }
  /// Where the image is drawn in the widget.
  QRect imageRect() const;
  /// The size the image would be drawn at without a limit (fitted to the widget).
  QSize fittedImageSize() const;
  /// Draws the image no larger than `limit` (an invalid size: no limit), so that two panels
  /// side by side show it at the same size.
  void setImageSizeLimit(const QSize& limit);

  int wordIndex() const { return word_; }
  const QImage& image() const { return image_; }
  const fovea::OverlayStyle& overlayStyle() const { return style_; }
  /// What is on screen now (image area only), for tests and "export view".
  QImage renderedFrame();

  QSize sizeHint() const override { return {480, 480}; }

 Q_SIGNALS:
  void fileDropped(const QString& path);
  void regionSelected(const fovea::ProbeRegion& region);
  /// A right-click while a probe or a take-away is shown: put the word's own α back.
  void dismissRequested();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  /// Where the image is drawn, and how widget points map to its pixels.
  ImagePlacement placement() const;
  void rebuild();

  QImage image_;
  fovea::CaptionResult caption_;
  bool has_caption_ = false;
  int word_ = -1;
  fovea::OverlayStyle style_;
  QString placeholder_;
  // Cached: the image scaled to the target rect, and the composed frame.
  fovea::RgbImage base_, frame_;
  QImage frame_image_;
  QHash<int, QImage> frames_;  ///< composed frame per word index (cleared on any other change)
  QSize base_size_;
  bool dirty_ = true;
  bool probe_active_ = false;
  std::vector<float> probe_alpha_;
  fovea::ProbeRegion probe_region_;
  bool removal_active_ = false;
  QImage removal_image_;
  std::vector<int> removed_cells_, control_cells_;
  QSize size_limit_;
  RegionDrag* drag_;  ///< the drag of a region to probe (its mouse events)
};

}  // namespace fovea::ui
