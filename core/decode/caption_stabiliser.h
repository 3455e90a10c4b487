#pragma once
/// Captions of a moving picture that do not flicker. Each frame is captioned afresh; the caption
/// shown changes only when the frame's own caption is more probable than the shown one, on that
/// frame, by `margin` nats (log p(new | frame) - log p(shown | frame), the shown one scored by
/// teacher forcing) on `frames` consecutive frames. α is always the current frame's: the new
/// caption's when it is the shown one, else the shown caption's α on this frame (teacher forcing).
#include <functional>
#include <string>

#include "core/data/image.h"
#include "core/decode/caption_result.h"

namespace fovea {

class Captioner;

/// The rule's two numbers, chosen on clips of the validation split (docs/cli.md, "Live"): with
/// the shipped soft model, 1 nat over 5 frames (a fifth of a second at 25 fps) cuts the shown
/// caption's changes from about 7 a second to under 1, keeping noun-phrase pointing over 90%.
struct StabiliserRule {
  double margin = 1.0;  ///< nats by which the new caption must be more probable
  int frames = 5;       ///< consecutive frames it must be so (1: switch at once)
};

/// What one frame gives: the caption shown (with this frame's α) and how it came about.
struct LiveCaption {
  CaptionResult shown;     ///< the caption to show, its α from this frame
  std::string candidate;   ///< this frame's own caption
  double advantage = 0;    ///< log p(candidate) - log p(shown) on this frame (0 when they are the same)
  int streak = 0;          ///< consecutive frames a different caption has won by the margin
  bool changed = false;    ///< the shown caption changed on this frame (true on the first frame)
};

class CaptionStabiliser {
 public:
  explicit CaptionStabiliser(StabiliserRule rule = {});

  /// One frame: `candidate` is the frame's own caption; `score_shown(text)` gives the shown
  /// caption's teacher-forced result on the same frame (called only when the two differ).
  LiveCaption update(CaptionResult candidate, const std::function<CaptionResult(const std::string&)>& score_shown);
  /// Forgets the shown caption (a new source, a seek): the next frame's caption is shown at once.
  void reset();
  const StabiliserRule& rule() const { return rule_; }
  const std::string& shown() const { return shown_; }

 private:
  StabiliserRule rule_;
  std::string shown_;
  int streak_ = 0;
};

/// A Captioner and a stabiliser: the live path of the CLI, the evaluation, the bench and the GUI.
/// Not thread-safe (one Captioner per thread, see captioner.h).
class LiveCaptioner {
 public:
  LiveCaptioner(Captioner& captioner, CaptionOptions options = {}, StabiliserRule rule = {});
  /// Captions `frame` (any size; resized to the model's as every image is) and stabilises.
  LiveCaption next(const RgbImage& frame);
  void reset() { stabiliser_.reset(); }
  const CaptionOptions& options() const { return options_; }
  const StabiliserRule& rule() const { return stabiliser_.rule(); }

 private:
  Captioner* captioner_;
  CaptionOptions options_;
  CaptionStabiliser stabiliser_;
};

}  // namespace fovea
