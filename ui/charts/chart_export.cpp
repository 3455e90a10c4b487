// A metric chart's context menu and exports (chart_export.h).
#include "ui/charts/chart_export.h"
#include "ui/charts/metric_chart.h"
#include "ui/common/user_message.h"
#include "ui/export/export_settings.h"

#include <QDir>
#include <QFileDialog>
#include <QImage>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>

#include <functional>
#include <utility>

namespace fovea::ui {

namespace {

/// Writes `path` through a temporary file renamed into place when `write` succeeds; false with
/// "Cannot write PATH: reason" in *error otherwise.
bool saveAtomically(const QString& path, QString* error, const std::function<bool(QSaveFile&)>& write) {
  QSaveFile file(path);
  const bool ok = file.open(QIODevice::WriteOnly) && write(file) && file.commit();
  if (!ok && error)
    *error = QStringLiteral("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
  return ok;
}

}  // namespace

// --- context menu ---------------------------------------------------------------------------------------

ChartExport::ChartExport(MetricChart* chart, Source source) : QObject(chart), chart_(chart), source_(std::move(source)) {}

void ChartExport::showMenu(const QPoint& global_pos) {
  QMenu menu(chart_);
  QAction* reset = menu.addAction(tr("Reset Zoom"), chart_, &MetricChart::resetZoom);
  reset->setEnabled(chart_->isZoomed());
  menu.addSeparator();
  menu.addAction(tr("Export PNG (%1 dpi)…").arg(ExportSettings::load().png_dpi), this, [this] { exportWithDialog(QStringLiteral("png")); });
  menu.addAction(tr("Export SVG…"), this, [this] { exportWithDialog(QStringLiteral("svg")); });
  menu.addAction(tr("Export CSV…"), this, [this] { exportWithDialog(QStringLiteral("csv")); });
  menu.exec(global_pos);
}

void ChartExport::exportWithDialog(const QString& kind) {
  QString base = chart_->title().toLower();
  base.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
  if (base.isEmpty() || base == QLatin1String("-")) base = QStringLiteral("chart");
  const QString filter = kind.toUpper() + QStringLiteral(" (*.") + kind + QLatin1Char(')');
  const QString path = QFileDialog::getSaveFileName(chart_, tr("Export Chart"), base + QLatin1Char('.') + kind, filter);
  if (path.isEmpty()) return;
  QString error;
  const bool ok = kind == QLatin1String("png")   ? png(path, &error)
                  : kind == QLatin1String("svg") ? svg(path, &error)
                                                 : csv(path, &error);
  if (!ok) show_message_box(chart_, QMessageBox::Warning, tr("Export Chart"), error);
}

// --- export ---------------------------------------------------------------------------------------------

bool ChartExport::png(const QString& path, QString* error) const {
  const QSize size = source_.size();
  const double scale = pngScale(ExportSettings::load().png_dpi);
  QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(scale);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    source_.render(painter, size);
  }
  return saveAtomically(path, error, [&](QSaveFile& file) { return image.save(&file, "PNG"); });
}

bool ChartExport::svg(const QString& path, QString* error) const {
  return saveAtomically(path, error, [&](QSaveFile& file) {
    const QSize size = source_.size();
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(chart_->title());
    QPainter painter(&svg);
    source_.render(painter, size);
    return painter.end();
  });
}

bool ChartExport::csv(const QString& path, QString* error) const {
  const QByteArray out = source_.csv();
  return saveAtomically(path, error, [&](QSaveFile& file) { return file.write(out) == out.size(); });
}

}  // namespace fovea::ui
