#include "ui/charts/chart_axes.h"

#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>

namespace fovea::ui {

using namespace curve;

namespace {

/// Axis ends snap to round numbers and follow a live curve with headroom (curve::liveRange), so
/// the range (and Qt Charts' re-layout of the axis) changes only now and then, not at every point.
void setRangeIfChanged(QValueAxis* axis, const Range& r) {
  if (axis->min() != r.min || axis->max() != r.max) axis->setRange(r.min, r.max);
}

}  // namespace

void styleAxis(QAbstractAxis* axis, const QString& title) {
  QFont labels = axis->labelsFont();
  labels.setPointSizeF(8);
  labels.setBold(false);
  axis->setLabelsFont(labels);
  QFont title_font = axis->titleFont();
  title_font.setPointSizeF(8);
  title_font.setBold(false);
  axis->setTitleFont(title_font);
  axis->setTitleText(title);
  axis->setMinorGridLineColor(QColor(0, 0, 0, 18));
}

ChartAxes::ChartAxes(QChart* chart, QObject* context, const QString& x_title, const QString& y_title) : chart_(chart) {
  x_ = new QValueAxis;
  useDynamicTicks(x_, context);
  styleAxis(x_, x_title);
  chart->addAxis(x_, Qt::AlignBottom);
  y_linear_ = new QValueAxis;
  useDynamicTicks(y_linear_, context);
  y_linear_->setLabelFormat(QStringLiteral("%g"));
  y_log_ = new QLogValueAxis;
  y_log_->setBase(10);
  y_log_->setLabelFormat(QStringLiteral("%g"));
  y_log_->setMinorTickCount(8);
  y_log_->setRange(1, 10);
  for (QAbstractAxis* axis : {static_cast<QAbstractAxis*>(y_linear_), static_cast<QAbstractAxis*>(y_log_)}) {
    styleAxis(axis, y_title);
    chart->addAxis(axis, Qt::AlignLeft);
  }
  y_log_->setVisible(false);
  y_ = y_linear_;
}

bool ChartAxes::logY() const { return y_ == y_log_; }

double ChartAxes::yMin() const { return logY() ? y_log_->min() : y_linear_->min(); }

double ChartAxes::yMax() const { return logY() ? y_log_->max() : y_linear_->max(); }

void ChartAxes::attach(QLineSeries* line) const {
  line->attachAxis(x_);
  line->attachAxis(y_);
}

void ChartAxes::setXTitle(const QString& title) { x_->setTitleText(title); }

void ChartAxes::disconnect(QObject* receiver) const {
  x_->disconnect(receiver);
  y_linear_->disconnect(receiver);
}

void ChartAxes::fit(const Bounds& b) {
  fitting_ = true;
  if (!b.valid()) {
    x_->setRange(0, 1);
    y_->setRange(logY() ? 1 : 0, logY() ? 10 : 1);
    fit_tight_ = true;
  } else {
    fitX(b.min_x, b.max_x);
    logY() ? fitLogY(b.min_y, b.max_y) : fitLinearY(b.min_y, b.max_y);
    fit_tight_ = false;
  }
  fitting_ = false;
}

/// The range an axis keeps or grows to (curve::liveRange); a tight fit for a first look at the
/// data or curves set whole (a finished run loaded), which have no live end to leave room for.
Range ChartAxes::currentRange(double min, double max) const { return fit_tight_ ? Range{} : Range{min, max}; }

void ChartAxes::fitX(double lo, double hi) {
  const double pad = hi > lo ? 0.01 * (hi - lo) : 1;
  LiveAxis how;
  how.ticks = 5;
  if (lo >= 0) how.floor = 0;  // steps >= 0 keep the axis >= 0
  setRangeIfChanged(x_, liveRange(currentRange(x_->min(), x_->max()), lo >= 0 ? std::max(0.0, lo - pad) : lo - pad,
                                  hi + pad, how));
}

void ChartAxes::fitLinearY(double lo, double hi) {
  // Values differing by less than a millionth of themselves (or by 1e-9 near zero) are one value:
  // stretched over the axis they looked like a rise and fall (a BLEU-4 of 1e-14 drawn near 0.9,
  // Qt labelling an axis that narrow 0 to 1). Such values, and those indistinguishable from zero,
  // are drawn as the constant they are.
  const double least = std::max(1e-6 * std::max(std::abs(lo), std::abs(hi)), 1e-9);
  if (hi - lo < least) lo = hi = std::abs(lo + hi) < 2 * least ? 0.0 : 0.5 * (lo + hi);
  const double pad = hi > lo ? 0.05 * (hi - lo) : (lo != 0 ? 0.1 * std::abs(lo) : 1);
  LiveAxis how;
  how.ticks = 10;
  if (lo >= 0) how.floor = 0;  // a falling loss does not get headroom below zero
  setRangeIfChanged(y_linear_, liveRange(currentRange(y_linear_->min(), y_linear_->max()), lo - pad, hi + pad, how));
}

/// Log range with a 5% margin (in decades), kept while it holds the data like a linear axis.
/// QLogValueAxis labels only powers of its base: base 10 from two decades on, base 2 below
/// (0.25, 0.5, 1, 2, 4), and the range widened to hold at least one such power.
void ChartAxes::fitLogY(double lo_value, double hi_value) {
  const double lo10 = std::log10(lo_value), hi10 = std::log10(hi_value);
  const double pad = hi10 > lo10 ? 0.05 * (hi10 - lo10) : 0.1;
  LiveAxis how;
  how.ticks = 0;
  const Range current = currentRange(std::log10(y_log_->min()), std::log10(y_log_->max()));
  const Range r = liveRange(current, lo10 - pad, hi10 + pad, how);
  if (r.min == current.min && r.max == current.max) return;  // kept (pow(log10(x)) need not give x back)
  double lo = r.min, hi = r.max;
  const double base = hi - lo >= 2 ? 10 : 2;
  if (y_log_->base() != base) {
    y_log_->setBase(base);
    y_log_->setMinorTickCount(base == 10 ? 8 : 0);
  }
  lo /= std::log10(base);  // now in powers of base
  hi /= std::log10(base);
  if (std::floor(hi) < std::ceil(lo)) {
    if (lo - std::floor(lo) < std::ceil(hi) - hi) lo = std::floor(lo);
    else hi = std::ceil(hi);
  }
  const double min = std::pow(base, lo), max = std::pow(base, hi);
  if (y_log_->min() != min || y_log_->max() != max) y_log_->setRange(min, max);
}

void ChartAxes::updateTicks() {
  const QRectF plot = chart_->plotArea();
  const double x_step = niceInterval(x_->max() - x_->min(), std::max(2, int(plot.width() / 90)));
  x_->setTickInterval(x_step);  // Qt skips an unchanged interval...
  // ...but not an unchanged label format: QValueAxis::setLabelFormat always signals, and the chart
  // then re-lays out the axis and re-shapes every label, at every live redraw.
  const QString x_format = x_step >= 1 ? QStringLiteral("%.0f") : QStringLiteral("%g");
  if (x_->labelFormat() != x_format) x_->setLabelFormat(x_format);
  const double y_step = labelInterval(y_linear_->min(), y_linear_->max(), std::max(2, int(plot.height() / 45)));
  y_linear_->setTickInterval(y_step);
}

/// Ticks at round multiples of an interval chosen for the range. The interval follows minChanged /
/// maxChanged, which Qt Charts emits before it lays the axis out for the new range: set after that
/// (on rangeChanged), a zoom-out would first lay out one tick per old interval, possibly millions.
void ChartAxes::useDynamicTicks(QValueAxis* axis, QObject* context) {
  axis->setTickInterval(1);
  axis->setTickAnchor(0);
  axis->setTickType(QValueAxis::TicksDynamic);
  QObject::connect(axis, &QValueAxis::minChanged, context, [this] { updateTicks(); });
  QObject::connect(axis, &QValueAxis::maxChanged, context, [this] { updateTicks(); });
}

void ChartAxes::useLogY(bool on, const std::vector<QLineSeries*>& lines) {
  QAbstractAxis* axis = on ? static_cast<QAbstractAxis*>(y_log_) : y_linear_;
  if (axis == y_) return;
  for (QLineSeries* line : lines) {
    line->clear();  // first: a log axis warns about non-positive points
    line->detachAxis(y_);
    line->attachAxis(axis);
  }
  y_->setVisible(false);
  axis->setVisible(true);
  y_ = axis;
}

}  // namespace fovea::ui
