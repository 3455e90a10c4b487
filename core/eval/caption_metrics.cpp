#include "core/eval/caption_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace fovea {

namespace {

void check_sizes(const char* metric, std::size_t c, std::size_t r) {
  if (c != r) {
    throw std::invalid_argument(std::string(metric) + ": " + std::to_string(c) + " candidates but " + std::to_string(r) +
                                " reference sets");
  }
}

std::size_t lcs(const Tokens& a, const Tokens& b) {
  std::vector<std::size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

using Ngram = std::vector<std::string>;
using Counts = std::map<Ngram, double>;

Counts ngram_counts(const Tokens& words) {
  Counts c;
  for (std::size_t n = 1; n <= 4; ++n) {
    for (std::size_t i = 0; i + n <= words.size(); ++i) c[Ngram(words.begin() + long(i), words.begin() + long(i + n))] += 1;
  }
  return c;
}

struct TfIdf {
  std::map<Ngram, double> vec[4];
  double norm[4] = {0, 0, 0, 0};
  double length = 0;  ///< the toolkit counts bigrams here (its `if n == 1` on a 0-based n)
};

TfIdf to_vector(const Counts& counts, const std::map<Ngram, double>& df, double log_images) {
  TfIdf v;
  for (const auto& [g, tf] : counts) {
    const std::size_t n = g.size() - 1;
    auto it = df.find(g);
    const double d = std::log(std::max(1.0, it == df.end() ? 0.0 : it->second));
    const double w = tf * (log_images - d);
    v.vec[n][g] = w;
    v.norm[n] += w * w;
    if (n == 1) v.length += tf;
  }
  for (double& x : v.norm) x = std::sqrt(x);
  return v;
}

double similarity(const TfIdf& hyp, const TfIdf& ref, double sigma) {
  const double delta = hyp.length - ref.length;
  double total = 0;
  for (int n = 0; n < 4; ++n) {
    double val = 0;
    for (const auto& [g, w] : hyp.vec[n]) {
      auto it = ref.vec[n].find(g);
      const double r = it == ref.vec[n].end() ? 0.0 : it->second;
      val += std::min(w, r) * r;
    }
    if (hyp.norm[n] != 0 && ref.norm[n] != 0) val /= hyp.norm[n] * ref.norm[n];
    val *= std::exp(-(delta * delta) / (2 * sigma * sigma));
    total += val;
  }
  return total / 4.0;
}

}  // namespace

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / double(v.size());
}

std::vector<double> rouge_l(const std::vector<Tokens>& candidates, const std::vector<std::vector<Tokens>>& references) {
  check_sizes("ROUGE-L", candidates.size(), references.size());
  constexpr double beta = 1.2;
  std::vector<double> scores;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    double p_max = 0, r_max = 0;
    for (const auto& ref : references[i]) {
      const double l = double(lcs(ref, c));
      // The toolkit splits an empty caption into one empty token: length 1, never 0.
      p_max = std::max(p_max, l / double(std::max<std::size_t>(1, c.size())));
      r_max = std::max(r_max, l / double(std::max<std::size_t>(1, ref.size())));
    }
    scores.push_back(p_max != 0 && r_max != 0 ? (1 + beta * beta) * p_max * r_max / (r_max + beta * beta * p_max) : 0.0);
  }
  return scores;
}

CiderD::CiderD(const std::vector<std::vector<Tokens>>& corpus) : images_(corpus.size()) {
  for (const auto& refs : corpus) {
    std::map<Ngram, bool> seen;
    for (const auto& r : refs) {
      for (const auto& [g, c] : ngram_counts(r)) seen[g] = true;
    }
    for (const auto& [g, _] : seen) df_[g] += 1;
  }
}

std::vector<double> CiderD::score(const std::vector<Tokens>& candidates, const std::vector<Tokens>& references) const {
  constexpr double sigma = 6.0;
  const double log_images = std::log(double(std::max<std::size_t>(1, images_)));
  std::vector<TfIdf> refs;
  for (const auto& r : references) refs.push_back(to_vector(ngram_counts(r), df_, log_images));
  std::vector<double> scores;
  for (const auto& c : candidates) {
    const auto hyp = to_vector(ngram_counts(c), df_, log_images);
    double s = 0;
    for (const auto& ref : refs) s += similarity(hyp, ref, sigma);
    scores.push_back(refs.empty() ? 0.0 : s / double(refs.size()) * 10.0);
  }
  return scores;
}

std::vector<double> cider_d(const std::vector<Tokens>& candidates, const std::vector<std::vector<Tokens>>& references) {
  check_sizes("CIDEr-D", candidates.size(), references.size());
  const CiderD scorer(references);
  std::vector<double> scores;
  for (std::size_t i = 0; i < candidates.size(); ++i) scores.push_back(scorer.score({candidates[i]}, references[i])[0]);
  return scores;
}

}  // namespace fovea
