#pragma once
/// Conversions between Qt images and the engine's RgbImage, and image-file loading with the
/// checks the GUI needs (unreadable, not an image, huge, grayscale, alpha).
#include <QImage>
#include <QString>

#include "core/data/image.h"

namespace fovea::ui {

/// Any QImage format to 8-bit RGB; transparent pixels are composited onto white.
RgbImage to_rgb(const QImage& image);
/// A deep copy as QImage::Format_RGB888.
QImage to_qimage(const RgbImage& image);

struct LoadedImage {
  QImage image;   ///< null when loading failed
  QString error;  ///< names the file and what was wrong
  QString note;   ///< e.g. "downscaled from 20000x15000"
};

/// Reads an image file. Images with more than `max_side` pixels on a side are read downscaled.
LoadedImage load_image_file(const QString& path, int max_side = 2048);

}  // namespace fovea::ui
