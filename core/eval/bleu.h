#pragma once
/// Corpus BLEU-1..4 computed exactly as the coco-caption toolkit does (docs/design.md §5.1): clipped
/// n-gram counts summed over the corpus, the closest reference length (ties to the shorter),
/// brevity penalty on the corpus totals, the toolkit's tiny/small epsilons.
#include <array>
#include <string>
#include <vector>

namespace fovea {

using Tokens = std::vector<std::string>;

/// candidates[i] is scored against references[i] (one or more tokenised references).
std::array<double, 4> corpus_bleu(const std::vector<Tokens>& candidates, const std::vector<std::vector<Tokens>>& references);

}  // namespace fovea
