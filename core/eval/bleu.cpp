#include "core/eval/bleu.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>

namespace fovea {

namespace {

using NgramCounts = std::map<std::vector<std::string>, int>;

NgramCounts count_ngrams(const Tokens& words, int max_n) {
  NgramCounts counts;
  for (int n = 1; n <= max_n; ++n) {
    for (std::size_t i = 0; i + std::size_t(n) <= words.size(); ++i) {
      ++counts[std::vector<std::string>(words.begin() + long(i), words.begin() + long(i) + n)];
    }
  }
  return counts;
}

}  // namespace

std::array<double, 4> corpus_bleu(const std::vector<Tokens>& candidates, const std::vector<std::vector<Tokens>>& references) {
  if (candidates.size() != references.size()) {
    throw std::invalid_argument("BLEU: " + std::to_string(candidates.size()) + " candidates but " +
                                std::to_string(references.size()) + " reference sets");
  }
  constexpr int N = 4;
  constexpr double tiny = 1e-15, small = 1e-9;
  double test_len = 0, ref_len = 0;
  std::array<double, N> guess{}, correct{};
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& cand = candidates[i];
    if (references[i].empty()) throw std::invalid_argument("BLEU: candidate " + std::to_string(i) + " has no reference");
    NgramCounts max_ref;
    std::vector<int> ref_lens;
    for (const auto& ref : references[i]) {
      ref_lens.push_back(int(ref.size()));
      for (const auto& [g, c] : count_ngrams(ref, N)) {
        auto& m = max_ref[g];
        m = std::max(m, c);
      }
    }
    const int len = int(cand.size());
    // Closest reference length, ties to the shorter one (min over (|l - len|, l)).
    int best = ref_lens[0];
    for (int l : ref_lens) {
      if (std::abs(l - len) < std::abs(best - len) || (std::abs(l - len) == std::abs(best - len) && l < best)) best = l;
    }
    test_len += len;
    ref_len += best;
    for (int n = 1; n <= N; ++n) guess[n - 1] += std::max(0, len - n + 1);
    for (const auto& [g, c] : count_ngrams(cand, N)) {
      auto it = max_ref.find(g);
      if (it != max_ref.end()) correct[g.size() - 1] += std::min(c, it->second);
    }
  }
  std::array<double, N> bleus{};
  double bleu = 1.0;
  for (int k = 0; k < N; ++k) {
    bleu *= (correct[k] + tiny) / (guess[k] + small);
    bleus[k] = std::pow(bleu, 1.0 / (k + 1));
  }
  const double ratio = (test_len + tiny) / (ref_len + small);
  if (ratio < 1) {
    for (auto& b : bleus) b *= std::exp(1 - 1 / ratio);
  }
  return bleus;
}

}  // namespace fovea
