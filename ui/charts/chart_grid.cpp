// The training dashboard's charts and their grid (chart_grid.h).
#include "ui/charts/chart_grid.h"

#include <QGridLayout>
#include <QWidget>

#include <algorithm>

#include "ui/charts/metric_chart.h"

namespace fovea::ui {

namespace {

/// Charts shown only once a run has points in them (pretraining, self-critical training).
bool only_with_points(const QString& name) {
  return name == "pretraining" || name == "self_critical" || name == "advantage" || name == "sample_length" ||
         name == "end_rate" || name == "faithfulness";
}

/// Smoothing is for the noisy per-step curves only: not the validation scores (a handful of points
/// per run), nor the learning rate (a schedule, not a measurement).
bool smoothed(const QString& name) {
  return name != "bleu4" && name != "cider" && name != "pointing" && name != "faithfulness" && name != "lr";
}

}  // namespace

ChartGrid::ChartGrid(QWidget* host) : QObject(host), host_(host), grid_(new QGridLayout(host)) {
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setSpacing(4);
  // Long enough for the window to paint the chart just shown before the next one shows: at 0 ms,
  // two or three charts were often painted in one pass.
  show_timer_.setInterval(20);
  connect(&show_timer_, &QTimer::timeout, this, &ChartGrid::showNext);
  create_timer_.setInterval(0);
  connect(&create_timer_, &QTimer::timeout, this, [this] {
    if (!createNext()) create_timer_.stop();
  });
}

void ChartGrid::add(const QString& name, const QString& title, const QString& y_label) {
  specs_.append({name, title, y_label});
  order_ << name;
}

bool ChartGrid::createNext() {
  const auto next = std::find_if(specs_.begin(), specs_.end(), [&](const ChartSpec& s) { return !charts_.contains(s.name); });
  if (next == specs_.end()) return false;
  auto* c = new MetricChart(next->title, next->y_label, host_);
  c->setObjectName(next->name);
  connect(c, &MetricChart::hovered, this, &ChartGrid::hovered);
  const int index = int(order_.indexOf(next->name));
  c->setRedrawDelay(100 + 25 * index);  // one chart per pass: the GUI thread never paints them all at once
  c->hide();  // placed by relayout()
  QSizePolicy policy = c->sizePolicy();
  policy.setRetainSizeWhenHidden(true);  // placed while hidden: its cell is kept until it shows
  c->setSizePolicy(policy);
  if (next->name == "pretraining") c->setXLabel(tr("pretraining step"));
  if (smoothing_ > 0 && smoothed(next->name)) c->setSmoothing(smoothing_);
  if (log_scale_) c->setLogScale(true);
  charts_.insert(next->name, c);
  relayout();
  return true;
}

void ChartGrid::ensureCharts() const {
  if (charts_.size() == specs_.size()) return;
  auto* self = const_cast<ChartGrid*>(this);
  while (self->createNext()) {
  }
  self->create_timer_.stop();
}

MetricChart* ChartGrid::chart(const QString& name) const {
  ensureCharts();
  return charts_.value(name);
}

QStringList ChartGrid::shown() const {
  ensureCharts();
  return shown_;
}

void ChartGrid::setRunKinds(bool any_run, bool any_hard) {
  any_run_ = any_run;
  any_hard_ = any_hard;
  relayout();
}

void ChartGrid::relayout() {
  QStringList shown;
  for (const auto& name : order_) {
    if (!charts_.contains(name)) continue;  // not made yet: placed when it is
    if (any_run_ && (name == "reinforce" || name == "reward_var") && !any_hard_) continue;
    if (any_run_ && only_with_points(name)) {
      const auto keys = charts_[name]->seriesKeys();
      if (std::none_of(keys.begin(), keys.end(), [&](const QString& k) { return charts_[name]->pointCount(k) > 0; })) continue;
    }
    shown << name;
  }
  const int width = std::max(1, host_->width());
  const int columns = std::clamp(width / (MetricChart::kMinimumSize.width() + grid_->spacing()), 1, 3);
  if (shown == shown_ && columns == columns_) return;
  const QStringList before = shown_;
  const int columns_before = columns_;
  shown_ = shown;
  columns_ = columns;
  to_show_.clear();
  for (auto* c : charts_) {
    const int i = int(shown_.indexOf(c->objectName()));
    // A chart keeps its cell (and stays as it is) when neither its place nor the columns changed.
    if (i >= 0 && columns_ == columns_before && before.indexOf(c->objectName()) == i && grid_->indexOf(c) >= 0) continue;
    grid_->removeWidget(c);
    c->hide();
    if (i < 0) continue;
    // Hidden, a chart's resize (its axes laid out, its labels shaped) waits for its show.
    grid_->addWidget(c, i / columns_, i % columns_);
  }
  for (const auto& name : shown_) {
    if (charts_[name]->isHidden()) to_show_ << name;
  }
  if (painted_) show_timer_.start();
  const int rows = (int(shown_.size()) + columns_ - 1) / columns_;
  host_->setMinimumHeight(rows * (MetricChart::kMinimumSize.height() + grid_->spacing()));
}

void ChartGrid::resumeShowing() {
  if (painted_ && !to_show_.isEmpty()) show_timer_.start();
}

void ChartGrid::startShowing() {
  if (painted_) return;
  // Made one per turn of the event loop after this frame, then shown one per show_timer_ tick:
  // the window's first paint (a full frame) carries no chart.
  painted_ = true;
  if (charts_.size() < order_.size()) create_timer_.start();
  if (!to_show_.isEmpty()) show_timer_.start();
}

void ChartGrid::showNext() {
  if (!host_->isVisible()) return show_timer_.stop();  // resumed by resumeShowing: shown with the window, all at once
  while (!to_show_.isEmpty()) {
    auto* c = charts_.value(to_show_.takeFirst());
    if (c && c->isHidden() && shown_.contains(c->objectName())) {
      c->show();
      break;
    }
  }
  if (to_show_.isEmpty()) show_timer_.stop();
}

void ChartGrid::setSmoothing(double weight) {
  smoothing_ = weight;  // for the charts not made yet too
  for (auto it = charts_.begin(); it != charts_.end(); ++it) {
    if (smoothed(it.key())) it.value()->setSmoothing(weight);
  }
}

void ChartGrid::setLogScale(bool on) {
  log_scale_ = on;
  for (auto* c : charts_) c->setLogScale(on);
}

void ChartGrid::resetZoom() {
  for (auto* c : charts_) c->resetZoom();
}

}  // namespace fovea::ui
