#include "core/eval/removal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

namespace fovea {
namespace {

/// Squared distance between two cells of a grid_w-wide grid.
double cell_distance2(int a, int b, int grid_w) {
  const double dr = a / grid_w - b / grid_w, dc = a % grid_w - b % grid_w;
  return dr * dr + dc * dc;
}

/// The cells not in `attended`, the furthest from every attended cell first.
std::vector<int> far_cells(const std::vector<int>& attended, const std::vector<bool>& taken, int grid_w) {
  std::vector<int> cells;
  std::vector<double> nearest(taken.size(), std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < taken.size(); ++i) {
    if (taken[i]) continue;
    cells.push_back(int(i));
    for (int a : attended) nearest[i] = std::min(nearest[i], cell_distance2(int(i), a, grid_w));
  }
  std::stable_sort(cells.begin(), cells.end(), [&](int a, int b) { return nearest[std::size_t(a)] > nearest[std::size_t(b)]; });
  return cells;
}

/// relative_drop for probabilities (a vanished one counts as 1e-30).
double probability_drop(double p_before, double p_after) {
  return relative_drop(std::log(std::max(p_before, 1e-30)), std::log(std::max(p_after, 1e-30)));
}

Removal remove_and_recaption(Captioner& captioner, const RgbImage& image, const CaptionResult& caption, std::size_t word,
                             std::vector<int> cells, const CaptionOptions& options) {
  Removal r;
  r.cells = std::move(cells);
  r.image = remove_cells(image, r.cells, caption.grid_h, caption.grid_w);
  const CaptionResult scored = captioner.score(r.image, caption.text());
  r.p_word = word < scored.words.size() ? std::exp(double(scored.words[word].log_prob)) : 0.0;
  r.caption = captioner.caption(r.image, options);
  const std::string& said = caption.words[word].word;
  r.word_still_said = std::any_of(r.caption.words.begin(), r.caption.words.end(),
                                  [&](const WordAttention& w) { return w.word == said; });
  return r;
}

nlohmann::json removal_json(const Removal& r, double p_before) {
  return {{"cells", r.cells},
          {"p", r.p_word},
          {"drop", probability_drop(p_before, r.p_word)},
          {"caption", r.caption.text()},
          {"word_still_said", r.word_still_said}};
}

}  // namespace

std::vector<int> cells_holding(const std::vector<float>& alpha, double mass) {
  std::vector<int> order(alpha.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return alpha[std::size_t(a)] > alpha[std::size_t(b)]; });
  const double total = std::accumulate(alpha.begin(), alpha.end(), 0.0);
  std::vector<int> out;
  double held = 0;
  for (int i : order) {
    if (!out.empty() && held >= mass * total) break;
    out.push_back(i);
    held += alpha[std::size_t(i)];
  }
  return out;
}

RgbImage remove_cells(const RgbImage& image, const std::vector<int>& cells, int grid_h, int grid_w) {
  if (image.empty()) return image;
  // The background: the median of each channel over the border pixels.
  std::array<std::vector<std::uint8_t>, 3> border;
  for (int x = 0; x < image.width; ++x)
    for (int y : {0, image.height - 1})
      for (int ch = 0; ch < 3; ++ch) border[std::size_t(ch)].push_back(image.at(x, y)[ch]);
  for (int y = 0; y < image.height; ++y)
    for (int x : {0, image.width - 1})
      for (int ch = 0; ch < 3; ++ch) border[std::size_t(ch)].push_back(image.at(x, y)[ch]);
  std::array<std::uint8_t, 3> fill{};
  for (int ch = 0; ch < 3; ++ch) {
    auto& v = border[std::size_t(ch)];
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    fill[std::size_t(ch)] = v[v.size() / 2];
  }
  RgbImage out = image;
  for (int cell : cells) {
    const int r = cell / grid_w, c = cell % grid_w;
    const int x0 = int(std::floor(double(c) * image.width / grid_w)), x1 = int(std::ceil(double(c + 1) * image.width / grid_w));
    const int y0 = int(std::floor(double(r) * image.height / grid_h)), y1 = int(std::ceil(double(r + 1) * image.height / grid_h));
    for (int y = std::max(0, y0); y < std::min(image.height, y1); ++y)
      for (int x = std::max(0, x0); x < std::min(image.width, x1); ++x) std::copy(fill.begin(), fill.end(), out.at(x, y));
  }
  return out;
}

double relative_drop(double log_before, double log_after) { return 1.0 - std::min(2.0, std::exp(log_after - log_before)); }

std::vector<int> alpha_control_cells(const CaptionResult& caption, std::size_t word, const std::vector<int>& attended,
                                     int* source) {
  const int gh = caption.grid_h, gw = caption.grid_w;
  const std::size_t n = std::size_t(gh) * std::size_t(gw);
  if (source) *source = -1;
  std::vector<bool> attended_mask(n, false), near(n, false);
  for (int a : attended) attended_mask[std::size_t(a)] = true;
  for (int a : attended)
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc) {
        const int r = a / gw + dr, c = a % gw + dc;
        if (r >= 0 && r < gh && c >= 0 && c < gw) near[std::size_t(r * gw + c)] = true;
      }
  // The word that looks most clearly somewhere else: its α's peak away from the attended cells,
  // times how much of its mass lies there (a diffuse word or one on the same object scores low).
  int best = -1;
  double best_score = 0;
  for (std::size_t u = 0; u < caption.words.size(); ++u) {
    const auto& alpha = caption.words[u].alpha;
    if (u == word || alpha.size() != n) continue;
    double peak = 0, mass = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (!near[i]) peak = std::max(peak, double(alpha[i])), mass += alpha[i];
    const double score = peak * mass;
    if (peak > 2.0 / double(n) && score > best_score) best = int(u), best_score = score;
  }
  std::vector<int> cells;
  if (best >= 0) {
    const auto& alpha = caption.words[std::size_t(best)].alpha;
    for (std::size_t i = 0; i < n; ++i)
      if (!near[i]) cells.push_back(int(i));
    std::stable_sort(cells.begin(), cells.end(), [&](int a, int b) { return alpha[std::size_t(a)] > alpha[std::size_t(b)]; });
    if (source) *source = best;
  }
  // Too few cells away from the attended ones (a large removal): the furthest of the rest.
  for (int c : far_cells(attended, attended_mask, gw)) {
    if (cells.size() >= attended.size()) break;
    if (std::find(cells.begin(), cells.end(), c) == cells.end()) cells.push_back(c);
  }
  cells.resize(std::min(cells.size(), attended.size()));
  return cells;
}

double TakeAway::attended_drop() const { return probability_drop(p_word, attended.p_word); }

double TakeAway::control_drop() const { return probability_drop(p_word, control.p_word); }

bool looks_at_no_one_place(const std::vector<float>& alpha) {
  return double(cells_holding(alpha, kAttendedMass).size()) > kSpreadShare * double(alpha.size());
}

TakeAway take_away(Captioner& captioner, const RgbImage& image, const CaptionResult& caption, std::size_t word,
                   const CaptionOptions& options) {
  if (word >= caption.words.size())
    throw std::out_of_range("word " + std::to_string(word + 1) + " of a " + std::to_string(caption.words.size()) +
                            "-word caption");
  TakeAway t;
  t.word = word;
  t.text = caption.words[word].word;
  t.grid_h = caption.grid_h, t.grid_w = caption.grid_w;
  const CaptionResult original = captioner.score(image, caption.text());
  t.p_word = word < original.words.size() ? std::exp(double(original.words[word].log_prob)) : 0.0;
  const auto attended = cells_holding(caption.words[word].alpha, kAttendedMass);
  t.spread = looks_at_no_one_place(caption.words[word].alpha);
  auto control = alpha_control_cells(caption, word, attended, &t.control_source);
  if (t.control_source >= 0) t.control_word = caption.words[std::size_t(t.control_source)].word;
  t.attended = remove_and_recaption(captioner, image, caption, word, attended, options);
  t.control = remove_and_recaption(captioner, image, caption, word, std::move(control), options);
  return t;
}

std::string TakeAway::spread_note() const {
  if (!spread) return {};
  return "\"" + text + "\" looks at no one place: " + std::to_string(int(kAttendedMass * 100)) +
         "% of its attention spreads over " + std::to_string(attended.cells.size()) + " of " +
         std::to_string(grid_h * grid_w) +
         " cells, so what was taken away is much of the image and says little about the word (words that name "
         "something in the image look at it)";
}

nlohmann::json to_json(const TakeAway& t) {
  nlohmann::json control = removal_json(t.control, t.p_word);
  control["source"] = t.control_source >= 0 ? nlohmann::json{{"index", t.control_source}, {"word", t.control_word}}
                                            : nlohmann::json(nullptr);
  return {{"word", t.text},
          {"index", t.word},
          {"p", t.p_word},
          {"grid", {t.grid_h, t.grid_w}},
          {"spread", t.spread},
          {"attended", removal_json(t.attended, t.p_word)},
          {"control", control}};
}

}  // namespace fovea
