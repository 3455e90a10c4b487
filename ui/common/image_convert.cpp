#include "ui/common/image_convert.h"

#include <QFileInfo>
#include <QImageReader>
#include <QPainter>

#include <cstring>

namespace fovea::ui {

RgbImage to_rgb(const QImage& image) {
  if (image.isNull()) return {};
  QImage rgb;
  if (image.hasAlphaChannel()) {
    QImage flat(image.size(), QImage::Format_RGB888);
    flat.fill(Qt::white);
    QPainter p(&flat);
    p.drawImage(0, 0, image);
    p.end();
    rgb = flat;
  } else {
    rgb = image.convertToFormat(QImage::Format_RGB888);
  }
  RgbImage out(rgb.width(), rgb.height());
  const std::size_t row = std::size_t(rgb.width()) * 3;
  for (int y = 0; y < rgb.height(); ++y) std::memcpy(out.at(0, y), rgb.constScanLine(y), row);
  return out;
}

QImage to_qimage(const RgbImage& image) {
  if (image.empty()) return {};
  return QImage(image.pixels.data(), image.width, image.height, image.width * 3, QImage::Format_RGB888).copy();
}

LoadedImage load_image_file(const QString& path, int max_side) {
  LoadedImage out;
  const QFileInfo info(path);
  if (!info.exists()) {
    out.error = QStringLiteral("%1: no such file").arg(path);
    return out;
  }
  if (!info.isFile() || !info.isReadable()) {
    out.error = QStringLiteral("%1: not a readable file").arg(path);
    return out;
  }
  QImageReader reader(path);
  reader.setAutoTransform(true);
  const QSize size = reader.size();
  if (!reader.canRead() || !size.isValid()) {
    out.error = QStringLiteral("%1: not an image Fovea can read (%2)").arg(path, reader.errorString());
    return out;
  }
  if (size.width() > max_side || size.height() > max_side) {
    reader.setScaledSize(size.scaled(max_side, max_side, Qt::KeepAspectRatio));
    out.note = QStringLiteral("downscaled from %1x%2").arg(size.width()).arg(size.height());
  }
  reader.setAllocationLimit(1024);  // MB; the scaled size above keeps us far below it
  out.image = reader.read();
  if (out.image.isNull()) out.error = QStringLiteral("%1: could not decode the image (%2)").arg(path, reader.errorString());
  return out;
}

}  // namespace fovea::ui
