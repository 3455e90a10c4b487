#pragma once
/// A metric chart's exports: PNG and SVG of the chart as drawn (axes, legend, curves, no
/// crosshair), CSV of its raw points, each written to a temporary file and renamed (QSaveFile);
/// and the chart's right-click menu, which offers them through a file dialog (and Reset Zoom).
#include <QByteArray>
#include <QObject>
#include <QSize>
#include <QString>

#include <functional>

class QPainter;
class QPoint;

namespace fovea::ui {

class MetricChart;

class ChartExport : public QObject {
  Q_OBJECT
 public:
  /// What the chart gives its exports: the size to render at, a painting of it at a size, its CSV.
  struct Source {
    std::function<QSize()> size;
    std::function<void(QPainter&, const QSize&)> render;
    std::function<QByteArray()> csv;
  };
  ChartExport(MetricChart* chart, Source source);

  /// At the PNG resolution of ExportSettings (300 dpi unless changed).
  bool png(const QString& path, QString* error = nullptr) const;
  bool svg(const QString& path, QString* error = nullptr) const;  ///< via QSvgGenerator (Qt6::Svg)
  /// Header "series,step,value", one row per raw point, series = label.
  bool csv(const QString& path, QString* error = nullptr) const;
  /// The right-click menu at `global_pos`.
  void showMenu(const QPoint& global_pos);

 private:
  void exportWithDialog(const QString& kind);

  MetricChart* chart_;
  Source source_;
};

}  // namespace fovea::ui
