#pragma once
// fovea export FOLDER --format html: the gallery page of a folder's images (core/render/gallery_page.h).
#include <string>

#include "core/decode/caption_settings.h"

namespace fovea::cli {

/// Captions every image of `folder` (PNG, JPEG, BMP; sorted by name) with the model `choices`
/// names and, when `compare` names another model file, with that one too; writes the page to
/// `out` and says so on stdout. An image that cannot be read is left out, named on stderr, and
/// counted in the result. Throws naming the folder when it holds no readable image.
int export_gallery(const std::string& folder, const std::string& out, const CaptionChoices& choices,
                    const std::string& compare, const std::string& style);

}  // namespace fovea::cli
