#include "core/object_segments.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <tuple>

namespace fovea {

int background_level(const RgbImage& image) {
  std::array<std::size_t, 256> count{};
  for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
    if (image.pixels[i] == image.pixels[i + 1] && image.pixels[i] == image.pixels[i + 2]) ++count[image.pixels[i]];
  }
  return int(std::max_element(count.begin(), count.end()) - count.begin());
}

double background_share(const RgbImage& image, int level) {
  if (image.empty()) return 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) {
    n += image.pixels[i] == level && image.pixels[i + 1] == level && image.pixels[i + 2] == level;
  }
  return double(n) / double(image.pixels.size() / 3);
}

std::vector<ObjectSegment> segment_objects(const RgbImage& image, const SegmentOptions& options) {
  const int W = image.width, H = image.height;
  if (image.empty()) return {};
  const int bg = background_level(image);
  if (background_share(image, bg) < options.min_background_share) return {};
  std::vector<char> lit(std::size_t(W) * H);
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) {
      const auto* p = image.at(x, y);
      lit[std::size_t(y) * W + x] = std::max({p[0], p[1], p[2]}) > bg;
    }
  }
  std::vector<char> seen(lit.size(), 0);
  // (boxes first span all of a segment's pixels, for joining parts; see the end)
  std::vector<ObjectSegment> out;
  std::deque<int> queue;
  for (int start = 0; start < W * H; ++start) {
    if (!lit[std::size_t(start)] || seen[std::size_t(start)]) continue;
    ObjectSegment s;
    s.x0 = W, s.y0 = H;
    seen[std::size_t(start)] = 1;
    queue.push_back(start);
    while (!queue.empty()) {
      const int i = queue.front();
      queue.pop_front();
      const int x = i % W, y = i / W;
      s.pixels.push_back(i);
      s.x0 = std::min(s.x0, x), s.y0 = std::min(s.y0, y), s.x1 = std::max(s.x1, x + 1), s.y1 = std::max(s.y1, y + 1);
      for (int dy = -options.reach; dy <= options.reach; ++dy) {
        for (int dx = -options.reach; dx <= options.reach; ++dx) {
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
          const auto j = std::size_t(ny) * W + nx;
          if (!lit[j] || seen[j]) continue;
          seen[j] = 1;
          queue.push_back(int(j));
        }
      }
    }
    out.push_back(std::move(s));
  }
  if (out.size() > 256) return {};  // not objects on a background: texture
  // Join the parts of one object: near each other, and together no larger than one object.
  for (bool joined = options.merge_gap > 0; joined;) {
    joined = false;
    for (std::size_t a = 0; a < out.size() && !joined; ++a) {
      for (std::size_t b = a + 1; b < out.size() && !joined; ++b) {
        auto& p = out[a];
        const auto& q = out[b];
        const int gap = std::max({q.x0 - p.x1, p.x0 - q.x1, q.y0 - p.y1, p.y0 - q.y1, 0});
        const int w = std::max(p.x1, q.x1) - std::min(p.x0, q.x0), h = std::max(p.y1, q.y1) - std::min(p.y0, q.y0);
        if (gap > options.merge_gap || std::max(w, h) > options.merge_side) continue;
        p.x0 = std::min(p.x0, q.x0), p.y0 = std::min(p.y0, q.y0), p.x1 = std::max(p.x1, q.x1), p.y1 = std::max(p.y1, q.y1);
        p.pixels.insert(p.pixels.end(), q.pixels.begin(), q.pixels.end());
        out.erase(out.begin() + std::ptrdiff_t(b));
        joined = true;
      }
    }
  }
  // Boxes without the faint halo that resampling leaves around an item: the pixels brighter than a
  // tenth of the segment's brightest, as the built-in scenes' own boxes are drawn.
  auto brightness = [&](int i) {
    const auto* p = image.at(i % W, i / W);
    return int(std::max({p[0], p[1], p[2]})) - bg;
  };
  for (auto& s : out) {
    int peak = 0;
    for (const int i : s.pixels) peak = std::max(peak, brightness(i));
    s.x0 = W, s.y0 = H, s.x1 = 0, s.y1 = 0;
    for (const int i : s.pixels) {
      if (10 * brightness(i) < peak) continue;
      const int x = i % W, y = i / W;
      s.x0 = std::min(s.x0, x), s.y0 = std::min(s.y0, y), s.x1 = std::max(s.x1, x + 1), s.y1 = std::max(s.y1, y + 1);
    }
  }
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const ObjectSegment& s) {
                             return int(s.pixels.size()) < options.min_pixels ||
                                    (options.max_side > 0 && std::max(s.width(), s.height()) > options.max_side);
                           }),
            out.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pixels.size() > b.pixels.size(); });
  return out;
}

RgbImage cut_out(const RgbImage& image, const ObjectSegment& segment, int canvas, bool mirror, int background,
                 int box[4], int shift_x, int shift_y) {
  RgbImage out(canvas, canvas, std::uint8_t(background));
  const int ox = (segment.x0 + segment.x1) / 2 - canvas / 2 - shift_x;
  const int oy = (segment.y0 + segment.y1) / 2 - canvas / 2 - shift_y;
  for (const int i : segment.pixels) {
    const int x = i % image.width - ox, y = i / image.width - oy;
    if (x < 0 || y < 0 || x >= canvas || y >= canvas) continue;
    std::copy_n(image.at(i % image.width, i / image.width), 3, out.at(mirror ? canvas - 1 - x : x, y));
  }
  if (box != nullptr) {
    int x0 = std::clamp(segment.x0 - ox, 0, canvas), x1 = std::clamp(segment.x1 - ox, 0, canvas);
    if (mirror) std::tie(x0, x1) = std::pair(canvas - x1, canvas - x0);
    box[0] = x0, box[1] = std::clamp(segment.y0 - oy, 0, canvas);
    box[2] = x1, box[3] = std::clamp(segment.y1 - oy, 0, canvas);
  }
  return out;
}

}  // namespace fovea
