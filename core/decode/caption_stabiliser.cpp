#include "core/decode/caption_stabiliser.h"

#include <stdexcept>
#include <utility>

#include "core/decode/captioner.h"

namespace fovea {

CaptionStabiliser::CaptionStabiliser(StabiliserRule rule) : rule_(rule) {
  if (rule_.frames < 1) throw std::invalid_argument("caption stabiliser: frames must be at least 1");
  if (!(rule_.margin >= 0)) throw std::invalid_argument("caption stabiliser: the margin must be 0 or more nats");
}

void CaptionStabiliser::reset() {
  shown_.clear();
  streak_ = 0;
}

LiveCaption CaptionStabiliser::update(CaptionResult candidate,
                                      const std::function<CaptionResult(const std::string&)>& score_shown) {
  LiveCaption out;
  out.candidate = candidate.text();
  if (shown_.empty() || out.candidate == shown_) {
    out.changed = shown_.empty();
    shown_ = out.candidate;
    streak_ = 0;
    out.shown = std::move(candidate);
    return out;
  }
  CaptionResult shown = score_shown(shown_);
  out.advantage = candidate.log_prob - shown.log_prob;
  // The rule: switch when log p(new) - log p(shown) > margin on `frames` consecutive frames.
  streak_ = out.advantage > rule_.margin ? streak_ + 1 : 0;
  out.streak = streak_;
  if (streak_ >= rule_.frames) {
    shown_ = out.candidate;
    streak_ = 0;
    out.changed = true;
    out.shown = std::move(candidate);
  } else {
    shown.familiarity = candidate.familiarity;
    out.shown = std::move(shown);
  }
  return out;
}

LiveCaptioner::LiveCaptioner(Captioner& captioner, CaptionOptions options, StabiliserRule rule)
    : captioner_(&captioner), options_(options), stabiliser_(rule) {}

LiveCaption LiveCaptioner::next(const RgbImage& frame) {
  auto candidate = captioner_->caption(frame, options_);
  return stabiliser_.update(std::move(candidate), [&](const std::string& shown) { return captioner_->score(frame, shown); });
}

}  // namespace fovea
