#include "core/decode/probe.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>
#include <stdexcept>

#include "core/data/image_tensor.h"
#include "core/data/tokenizer.h"
#include "core/decode/decoding.h"

namespace fovea {
namespace {

std::string describe(const ProbeRegion& r) {
  auto n = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  return r.point ? n(r.x0) + "," + n(r.y0) : n(r.x0) + "," + n(r.y0) + "," + n(r.x1) + "," + n(r.y1);
}

nlohmann::json grid_json(const std::vector<float>& a, int gh, int gw) {
  nlohmann::json grid = nlohmann::json::array();
  for (int y = 0; y < gh; ++y) grid.push_back(std::vector<float>(a.begin() + y * gw, a.begin() + (y + 1) * gw));
  return grid;
}

nlohmann::json words_json(const std::vector<ProbeWord>& words) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : words) out.push_back({{"word", w.word}, {"p", w.p}});
  return out;
}

/// The `top` most probable next words from log-probabilities (K) with <pad> and <start> ruled out.
std::vector<ProbeWord> top_words(const torch::Tensor& log_probs, const Vocabulary& vocab, int top) {
  auto lp = log_probs.to(torch::kCPU, torch::kFloat).clone();
  lp[Vocabulary::kPad] = -std::numeric_limits<float>::infinity();
  lp[Vocabulary::kStart] = -std::numeric_limits<float>::infinity();
  const auto k = std::min<std::int64_t>(top, lp.size(0) - 2);
  auto [values, indices] = lp.topk(k);
  std::vector<ProbeWord> out;
  for (std::int64_t i = 0; i < k; ++i)
    out.push_back({vocab.word(indices[i].item<std::int64_t>()), std::exp(values[i].item<float>())});
  return out;
}

}  // namespace

ProbeRegion parse_probe_region(const std::string& text) {
  static const std::regex number(R"(\s*(-?[0-9]*\.?[0-9]+)\s*)");
  std::vector<double> v;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::smatch m;
    if (!std::regex_match(part, m, number)) {
      v.clear();
      break;
    }
    const std::string digits = m[1];
    const double value = std::strtod(digits.c_str(), nullptr);
    if (!std::isfinite(value) || std::abs(value) > 1e9) {
      const std::string shown = digits.size() > 16 ? digits.substr(0, 12) + "... (" + std::to_string(digits.size()) + " digits)" : digits;
      throw std::invalid_argument("region: " + shown + " is not a pixel position; expected x0,y0,x1,y1 (a rectangle) or x,y "
                                  "(a point) within the image, in pixels");
    }
    v.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  ProbeRegion r;
  if (v.size() == 2) {
    r.point = true;
    r.x0 = r.x1 = v[0];
    r.y0 = r.y1 = v[1];
  } else if (v.size() == 4) {
    r.x0 = v[0], r.y0 = v[1], r.x1 = v[2], r.y1 = v[3];
  } else {
    throw std::invalid_argument("region '" + text + "': expected x0,y0,x1,y1 (a rectangle) or x,y (a point) in pixels");
  }
  check_probe_region(r);
  return r;
}

void check_probe_region(const ProbeRegion& r) {
  const std::string expected = "; expected x0,y0,x1,y1 (a rectangle, x0 < x1 and y0 < y1) or x,y (a point) within the image, in pixels";
  for (const double v : {r.x0, r.y0, r.x1, r.y1}) {
    if (!std::isfinite(v) || std::abs(v) > 1e9) {
      char shown[32];
      std::snprintf(shown, sizeof shown, "%g", v);
      throw std::invalid_argument("region " + describe(r) + ": " + shown + " is not a pixel position" + expected);
    }
  }
  if (r.point) return;
  if (r.x1 < r.x0 || r.y1 < r.y0) {
    throw std::invalid_argument("region " + describe(r) + ": inverted (" + (r.x1 < r.x0 ? "x1 is left of x0" : "y1 is above y0") + ")" + expected);
  }
  if (r.x1 == r.x0 || r.y1 == r.y0) {
    throw std::invalid_argument("region " + describe(r) + ": covers no area (" + (r.x1 == r.x0 ? "x0 = x1" : "y0 = y1") + ")" + expected);
  }
}

std::vector<float> forced_alpha(const ProbeRegion& region, int width, int height, int grid_h, int grid_w,
                                AttentionKind kind) {
  if (width <= 0 || height <= 0 || grid_h <= 0 || grid_w <= 0) throw std::invalid_argument("forced_alpha: empty image or grid");
  check_probe_region(region);
  const std::string where = "region " + describe(region) + " of the " + std::to_string(width) + "x" +
                            std::to_string(height) + " image";
  const double cw = double(width) / grid_w, ch = double(height) / grid_h;
  std::vector<float> alpha(std::size_t(grid_h) * grid_w, 0.0f);
  if (region.point) {
    if (region.x0 < 0 || region.y0 < 0 || region.x0 >= width || region.y0 >= height)
      throw std::invalid_argument(where + ": the point is outside the image");
    const double gx = region.x0 / cw - 0.5, gy = region.y0 / ch - 0.5;  // in cells, centres at integers
    if (kind == AttentionKind::Hard) {
      const int c = std::clamp(int(region.x0 / cw), 0, grid_w - 1), r = std::clamp(int(region.y0 / ch), 0, grid_h - 1);
      alpha[std::size_t(r) * grid_w + c] = 1;
      return alpha;
    }
    constexpr double sigma = 0.6;
    double total = 0;
    for (int r = 0; r < grid_h; ++r)
      for (int c = 0; c < grid_w; ++c) {
        const double d2 = (c - gx) * (c - gx) + (r - gy) * (r - gy);
        total += alpha[std::size_t(r) * grid_w + c] = float(std::exp(-d2 / (2 * sigma * sigma)));
      }
    for (auto& a : alpha) a = float(a / total);
    return alpha;
  }
  const double x0 = std::max(0.0, std::min(region.x0, region.x1)), x1 = std::min(double(width), std::max(region.x0, region.x1));
  const double y0 = std::max(0.0, std::min(region.y0, region.y1)), y1 = std::min(double(height), std::max(region.y0, region.y1));
  if (x1 <= x0 || y1 <= y0) throw std::invalid_argument(where + " covers no part of the image");
  double total = 0;
  // A hard model's one cell: the one holding most of the region; among cells that hold as much (a
  // region over many whole cells), the one nearest its centre, not the first in reading order.
  const double centre_c = (x0 + x1) / 2 / cw - 0.5, centre_r = (y0 + y1) / 2 / ch - 0.5;
  std::size_t best = 0;
  double best_area = -1, best_distance = 0;
  for (int r = 0; r < grid_h; ++r)
    for (int c = 0; c < grid_w; ++c) {
      const double ox = std::max(0.0, std::min(x1, (c + 1) * cw) - std::max(x0, c * cw));
      const double oy = std::max(0.0, std::min(y1, (r + 1) * ch) - std::max(y0, r * ch));
      const std::size_t i = std::size_t(r) * grid_w + c;
      const double area = ox * oy, distance = (c - centre_c) * (c - centre_c) + (r - centre_r) * (r - centre_r);
      total += alpha[i] = float(area);
      if (area > best_area * (1 + 1e-9) || (area >= best_area * (1 - 1e-9) && distance < best_distance)) {
        best = i, best_area = area, best_distance = distance;
      }
    }
  if (kind == AttentionKind::Hard) {
    std::fill(alpha.begin(), alpha.end(), 0.0f);
    alpha[best] = 1;
    return alpha;
  }
  for (auto& a : alpha) a = float(a / total);
  return alpha;
}

nlohmann::json to_json(const ProbeResult& r) {
  std::string prefix;
  for (const auto& w : r.prefix) prefix += (prefix.empty() ? "" : " ") + w;
  return {{"prefix", prefix},
          {"words", words_json(r.words)},
          {"alpha", grid_json(r.alpha, r.grid_h, r.grid_w)},
          {"beta", r.beta},
          {"own", {{"words", words_json(r.own_words)}, {"alpha", grid_json(r.own_alpha, r.grid_h, r.grid_w)}}},
          {"grid", {r.grid_h, r.grid_w}}};
}

ProbeResult probe_model(CaptionModel& m, const RgbImage& image, const ProbeRegion& region, const std::string& prefix,
                        int top) {
  if (image.empty()) throw std::invalid_argument("probe: empty image");
  if (top < 1) throw std::invalid_argument("probe: --top must be at least 1");
  torch::NoGradGuard no_grad;
  const bool was_training = m.net->is_training();
  m.net->eval();
  ProbeResult out;
  out.grid_h = int(m.config.grid_h);
  out.grid_w = int(m.config.grid_w);
  out.alpha = forced_alpha(region, image.width, image.height, out.grid_h, out.grid_w, m.config.attention);
  std::vector<std::int64_t> tokens;  // the words alone: no <start> or <end> around them
  for (const auto& word : tokenize(prefix)) tokens.push_back(m.vocab.index(word));
  for (const auto t : tokens) out.prefix.push_back(m.vocab.word(t));

  auto& dec = *m.net->decoder;
  const auto a = m.net->encode(images_to_tensor({&image}, m.config.image_size).to(m.device));
  const auto projected = dec.project_annotations(a);
  auto state = dec.initial_state(a);
  const auto opts = torch::TensorOptions().dtype(torch::kLong).device(m.device);
  auto prev = torch::full({1}, Vocabulary::kStart, opts);
  for (const auto t : tokens) {  // the prefix, teacher-forced with the model's own (expected) α
    const auto emb = dec.embed(prev);
    state = dec.attend_and_step(a, projected, dec.decoding_word_gates(prev, emb), state, {}).state;
    prev = torch::full({1}, t, opts);
  }
  const auto emb = dec.embed(prev);
  const auto gates = dec.decoding_word_gates(prev, emb);
  const auto forced = dec.attend_forced(a, torch::tensor(out.alpha).view({1, -1}), gates, state);
  const auto own = dec.attend_and_step(a, projected, gates, state, {});
  out.words = top_words(torch::log_softmax(dec.output_logits(emb, forced.state.h, forced.context), 1)[0], m.vocab, top);
  out.own_words = top_words(torch::log_softmax(dec.output_logits(emb, own.state.h, own.context), 1)[0], m.vocab, top);
  const auto own_alpha = own.alpha[0].to(torch::kCPU, torch::kFloat).contiguous();
  out.own_alpha.assign(own_alpha.data_ptr<float>(), own_alpha.data_ptr<float>() + own_alpha.numel());
  out.beta = forced.beta[0].item<float>();
  m.net->train(was_training);
  return out;
}

}  // namespace fovea
