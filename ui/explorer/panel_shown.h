#pragma once
/// What an ExplorerPanel shows, shared with the parts that act on it (its probe line and its
/// take-away line): the image, the caption shown for it and the choices it was captioned with,
/// and the panel's widgets those parts draw into.
#include <QImage>

#include "core/decode/caption_result.h"

namespace fovea::ui {

class AttentionView;
class CaptionStrip;
class ModelSession;
class PanelNotes;

struct PanelShown {
  QImage image;
  fovea::CaptionResult caption;
  bool has_caption = false;  ///< false until the first reply for `image`
  fovea::CaptionOptions options;

  /// Whether `word` is one of the words of the caption shown.
  bool hasWord(int word) const { return has_caption && word >= 0 && word < int(caption.words.size()); }
};

/// The panel's pieces a part of it works with; the panel owns them all.
struct PanelParts {
  const PanelShown* shown;
  ModelSession* session;
  AttentionView* view;
  CaptionStrip* strip;  ///< its current word is the panel's selected word
  PanelNotes* notes;
};

}  // namespace fovea::ui
