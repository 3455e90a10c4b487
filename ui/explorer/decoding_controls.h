#pragma once
/// The studio's decoding and overlay controls, on the bottom toolbar: beam width, greedy, sampled
/// glimpses (hard attention only), and how α is drawn (colormap, strength, smooth). They keep
/// their choices as the settings table's CaptionChoices (core/decode/caption_settings.h), turned
/// into the decoder's options in one place, and remember them from one session to the next.
#include <QObject>

#include "core/decode/caption_settings.h"
#include "core/render/heatmap.h"

class QCheckBox;
class QComboBox;
class QSlider;
class QSpinBox;
class QToolBar;

namespace fovea::ui {

class DecodingControls : public QObject {
  Q_OBJECT
 public:
  /// Adds the controls to `bar` (beam, greedy, sampled glimpses | overlay, strength, smooth).
  explicit DecodingControls(QToolBar* bar);

  /// What the controls ask a caption of (the model and device are the panels').
  fovea::CaptionChoices choices() const;
  /// The decoder's options of those choices (greedy: beam 1).
  fovea::CaptionOptions captionOptions() const;
  fovea::OverlayStyle overlayStyle() const;
  /// Beam 1 ticks greedy; a wider beam unticks it and sets the width.
  void setBeam(int beam);
  void setSampleGlimpses(bool on);
  /// Offers sampled glimpses only while a hard-attention model is shown.
  void setHardAttentionShown(bool hard);
  bool glimpseSwitchEnabled() const;
  /// The last session's choices (QSettings "view/..."), and keeping this one's.
  void restore();
  void remember() const;

 Q_SIGNALS:
  void captionOptionsChanged(const fovea::CaptionOptions& options);
  void overlayStyleChanged(const fovea::OverlayStyle& style);

 private:
  void addDecoding(QToolBar* bar);
  void addOverlay(QToolBar* bar);
  void decodingChanged();

  QSpinBox* beam_ = nullptr;
  QCheckBox* greedy_ = nullptr;           ///< beam 1
  QCheckBox* sample_glimpses_ = nullptr;  ///< offered for hard attention only
  QComboBox* colormap_ = nullptr;         ///< the overlay: how α is drawn
  QSlider* opacity_ = nullptr;            ///< its strength
  QCheckBox* smooth_ = nullptr;
};

}  // namespace fovea::ui
