#pragma once
/// Self-critical sequence training (Rennie et al., CVPR 2017): REINFORCE on whole captions with
/// the test-time metric, CIDEr-D, as reward and the model's own greedy caption's reward as the
/// baseline; or (Luo 2020, "A better variant of self-critical sequence training") the mean reward
/// of the image's other samples. Each image gets kSelfCriticalSamples captions sampled from the
/// model (core/decode/caption_sampling.h), decoded as one batch; the step then teacher-forces them,
/// each caption's −log p weighted by its advantage (core/train/objectives.h), <end> included: a
/// caption that ends is credited with ending there, so the reward teaches where captions stop.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/scene_source.h"
#include "core/data/vocabulary.h"
#include "core/eval/caption_metrics.h"
#include "core/model/show_attend_tell.h"

namespace fovea {

/// Captions sampled per image (Luo 2020's choice; --batch counts images).
inline constexpr int kSelfCriticalSamples = 5;

/// What one self-critical step measured, as sums over its sampled captions (so the processes of
/// a group add theirs up); the dashboards show the means.
struct SelfCriticalFigures {
  double captions = 0;       ///< sampled captions
  double reward = 0;         ///< Σ CIDEr-D of the samples
  double baseline = 0;       ///< Σ of the baselines they were compared with
  double advantage_sq = 0;   ///< Σ (reward − baseline)²
  double words = 0;          ///< Σ words per sample
  double ended = 0;          ///< samples that drew <end> within the length limit

  double mean_reward() const { return captions > 0 ? reward / captions : 0; }
  double mean_baseline() const { return captions > 0 ? baseline / captions : 0; }
  double mean_advantage() const { return captions > 0 ? (reward - baseline) / captions : 0; }
  double rms_advantage() const { return captions > 0 ? std::sqrt(advantage_sq / captions) : 0; }
  double mean_length() const { return captions > 0 ? words / captions : 0; }
  double end_rate() const { return captions > 0 ? ended / captions : 0; }
};

/// The reward: CIDEr-D with its document frequencies from the training split's references.
class SelfCriticalReward {
 public:
  /// The references of `train`'s images, at most `max_images` of them (the built-in scenes are
  /// drawn afresh every epoch from one generator: a few thousand give their statistics).
  explicit SelfCriticalReward(const SceneSource& train, std::size_t max_images = 4000);
  /// Each candidate against one image's references.
  std::vector<double> score(const std::vector<Tokens>& candidates, const std::vector<Tokens>& references) const {
    return cider_.score(candidates, references);
  }

 private:
  CiderD cider_;
};

/// The teacher-forced rows of one self-critical step: image i's samples are rows
/// i·kSelfCriticalSamples .. + kSelfCriticalSamples − 1.
struct SelfCriticalRows {
  torch::Tensor tokens, lengths;            ///< <start> sampled words [<end>], padded (core/data/batching.h)
  torch::Tensor advantages;                 ///< (rows) float: reward − baseline
  torch::Tensor word_boxes, word_has_box;   ///< attention supervision targets of the samples, when asked for
  SelfCriticalFigures figures;
};

/// Samples captions of `scenes` (whose annotations are `annotations`, (B, L, D)), scores them
/// against each scene's reference captions and sets their advantages over `baseline` ("greedy" or
/// "samples"). With grid_h, grid_w > 0, also the attention supervision targets of the sampled words
/// that name an object of their scene. `seed` draws the samples.
SelfCriticalRows self_critical_rows(ShowAttendTellImpl& net, const Vocabulary& vocab, const torch::Tensor& annotations,
                                    const std::vector<Scene>& scenes, const SelfCriticalReward& reward,
                                    const std::string& baseline, std::uint64_t seed, std::int64_t grid_h = 0,
                                    std::int64_t grid_w = 0);

}  // namespace fovea
