// MetricChart's context menu and exports: PNG and SVG of the chart as drawn (axes, legend, curves,
// no crosshair), CSV of the raw points, each written to a temporary file and renamed (QSaveFile).
#include "ui/charts/metric_chart.h"
#include "ui/charts/metric_chart_impl.h"
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

void MetricChart::showContextMenu(const QPoint& global_pos) {
  QMenu menu(this);
  QAction* reset = menu.addAction(tr("Reset Zoom"), this, &MetricChart::resetZoom);
  reset->setEnabled(isZoomed());
  menu.addSeparator();
  menu.addAction(tr("Export PNG (%1 dpi)…").arg(ExportSettings::load().png_dpi), this, [this] { exportWithDialog(QStringLiteral("png")); });
  menu.addAction(tr("Export SVG…"), this, [this] { exportWithDialog(QStringLiteral("svg")); });
  menu.addAction(tr("Export CSV…"), this, [this] { exportWithDialog(QStringLiteral("csv")); });
  menu.exec(global_pos);
}

void MetricChart::exportWithDialog(const QString& kind) {
  QString base = title().toLower();
  base.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
  if (base.isEmpty() || base == QLatin1String("-")) base = QStringLiteral("chart");
  const QString filter = kind.toUpper() + QStringLiteral(" (*.") + kind + QLatin1Char(')');
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Chart"), base + QLatin1Char('.') + kind, filter);
  if (path.isEmpty()) return;
  QString error;
  const bool ok = kind == QLatin1String("png")   ? exportPng(path, &error)
                  : kind == QLatin1String("svg") ? exportSvg(path, &error)
                                                 : exportCsv(path, &error);
  if (!ok) show_message_box(this, QMessageBox::Warning, tr("Export Chart"), error);
}

// --- export ---------------------------------------------------------------------------------------------

bool MetricChart::exportPng(const QString& path, QString* error) const {
  const QSize size = exportSize();
  const double scale = pngScale(ExportSettings::load().png_dpi);
  QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(scale);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    renderTo(painter, size);
  }
  return saveAtomically(path, error, [&](QSaveFile& file) { return image.save(&file, "PNG"); });
}

bool MetricChart::exportSvg(const QString& path, QString* error) const {
  return saveAtomically(path, error, [&](QSaveFile& file) {
    const QSize size = exportSize();
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title());
    QPainter painter(&svg);
    renderTo(painter, size);
    return painter.end();
  });
}

bool MetricChart::exportCsv(const QString& path, QString* error) const {
  const QByteArray out = csvText();
  return saveAtomically(path, error, [&](QSaveFile& file) { return file.write(out) == out.size(); });
}

// --- what exports write -------------------------------------------------------------------------------

QSize MetricChart::exportSize() const { return d_->exportSize(); }

void MetricChart::renderTo(QPainter& painter, const QSize& size) const { d_->render(painter, size); }

QByteArray MetricChart::csvText() const {
  QByteArray out = "series," + csvField(d_->x_label).toUtf8() + ",value\n";
  for (const auto& s : d_->series) {
    const QByteArray name = csvField(s->label).toUtf8();
    for (const QPointF& p : s->points.raw()) {
      out += name;
      out += ',';
      out += csvNumber(p.x()).toLatin1();
      out += ',';
      out += csvNumber(p.y()).toLatin1();
      out += '\n';
    }
  }
  return out;
}

}  // namespace fovea::ui
