#pragma once
/// What fovea-studio's window shows, shared by its parts (the live controls, the exports): the
/// image or video file, whether a video or a camera is playing in place of an image, and the
/// reference captions of the image's folder.
#include <QFileInfo>
#include <QString>

#include <string>
#include <vector>

#include "core/eval/reference_captions.h"

namespace fovea::ui {

struct ShownImage {
  QString path;       ///< the image or video file shown (absolute); empty for none or a camera
  bool live = false;  ///< a video file or a camera plays (its frames are captioned as they come)
  fovea::ReferenceCaptions references;  ///< of `references_dir`'s captions.json, if any
  QString references_dir;

  /// The reference captions of the image shown; none while live (frames have none) or with no image.
  std::vector<std::string> shownReferences() const {
    if (live || path.isEmpty()) return {};
    return references.of(QFileInfo(path).fileName().toStdString());
  }
};

}  // namespace fovea::ui
