#pragma once
// Shared by the studio's video tests: a generated clip of one Fashion-MNIST item moving about,
// written as a video file with its truth beside it.
#include <QString>
#include <QTemporaryDir>

#include <filesystem>
#include <string>

#include "core/data/video_io.h"
#include "core/datasets/fashion_mnist.h"
#include "core/datasets/moving_scenes.h"

namespace fovea::test_ui {

/// Whether the dataset the clips are made of is installed (dataset-fashion-mnist).
inline bool clipItemsInstalled() {
  return std::filesystem::exists(std::string(fovea::kFashionMnistDir) + "/t10k-images-idx3-ubyte.gz");
}

/// A clip of `seconds` at 10 frames a second, 224 px square, written in `dir` as clip.avi (its
/// path returned) with the item's boxes in clip.json.
inline QString writeMovingClip(const QTemporaryDir& dir, int seconds) {
  fovea::ClipOptions o;
  o.width = o.height = 224, o.fps = 10, o.seconds = seconds, o.min_objects = o.max_objects = 1, o.seed = 65;
  fovea::MovingScenes clips("val", 1, o);
  const QString clip = dir.filePath("clip.avi");
  fovea::write_clip(clips.clip(0), clip.toStdString(), dir.filePath("clip.json").toStdString());
  return clip;
}

}  // namespace fovea::test_ui
