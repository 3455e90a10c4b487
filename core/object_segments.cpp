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
    const bool speck = int(s.pixels.size()) < options.min_pixels;
    const bool too_large = options.max_side > 0 && std::max(s.width(), s.height()) > options.max_side;
    if (!speck && !too_large) out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pixels.size() > b.pixels.size(); });
  return out;
}

RgbImage cut_out(const RgbImage& image, const ObjectSegment& segment, int canvas, bool mirror, int background,
                 int box[4]) {
  RgbImage out(canvas, canvas, std::uint8_t(background));
  const int ox = (segment.x0 + segment.x1) / 2 - canvas / 2, oy = (segment.y0 + segment.y1) / 2 - canvas / 2;
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
