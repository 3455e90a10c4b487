#pragma once
/// ROUGE-L and CIDEr-D as the coco-caption toolkit (pycocoevalcap) computes them (docs/design.md §5.2).
/// Plain functions over tokenised captions; BLEU is in bleu.h.
#include <map>
#include <vector>

#include "core/eval/bleu.h"

namespace fovea {

/// Per image: LCS against each reference, precision and recall maximised separately over the
/// references, F with β = 1.2. Returns one score per image (the toolkit reports their mean).
std::vector<double> rouge_l(const std::vector<Tokens>& candidates, const std::vector<std::vector<Tokens>>& references);

/// CIDEr-D: tf-idf n-gram vectors (n = 1..4) with document frequency over the evaluated
/// references, candidate weights clipped by the reference's, Gaussian length penalty σ = 6 on
/// the toolkit's length, ×10, averaged over references and n. One score per image.
std::vector<double> cider_d(const std::vector<Tokens>& candidates, const std::vector<std::vector<Tokens>>& references);

/// CIDEr-D with its document frequencies fixed by a corpus of reference sets, so that captions
/// scored a few at a time (self-critical training's rewards, core/train/self_critical.h) score as
/// they would among the whole corpus. cider_d() is this with the evaluated references as corpus.
class CiderD {
 public:
  /// `corpus`: one set of reference captions per image.
  explicit CiderD(const std::vector<std::vector<Tokens>>& corpus);
  /// Each candidate against the same image's `references`: one score per candidate.
  std::vector<double> score(const std::vector<Tokens>& candidates, const std::vector<Tokens>& references) const;
  std::size_t images() const { return images_; }

 private:
  std::map<std::vector<std::string>, double> df_;  ///< n-gram -> images whose references hold it
  std::size_t images_ = 0;
};

double mean(const std::vector<double>& v);

}  // namespace fovea
