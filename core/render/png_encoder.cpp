#include "core/render/png_encoder.h"

#include "core/render/canvas.h"

namespace fovea {

std::vector<std::uint8_t> encode_png(const RgbImage& image) {
  const render::Surface surface = render::image_surface(image);
  return render::png_bytes(surface.get());
}

}  // namespace fovea
