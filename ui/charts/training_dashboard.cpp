#include "ui/charts/training_dashboard.h"

#include <QGridLayout>
#include <QPointF>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>

#include "ui/charts/metric_chart.h"
#include "ui/charts/run_curves.h"

namespace fovea::ui {

namespace {

/// Colours that stay apart when several runs overlay (Tableau 10).
const QColor kRunColours[] = {QColor(31, 119, 180), QColor(214, 39, 40),  QColor(44, 160, 44),  QColor(148, 103, 189),
                              QColor(255, 127, 14), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
                              QColor(188, 189, 34), QColor(23, 190, 207)};

/// A name's part of the default scheme ("soft-20261127-143012") as a reader says it: a time of
/// day "14:30:12", a date "11-27"; anything else as it is.
QString readable_part(const QString& part) {
  static const QRegularExpression time(QStringLiteral("^(\\d\\d)(\\d\\d)(\\d\\d)$")), date(QStringLiteral("^\\d{4}(\\d\\d)(\\d\\d)$"));
  if (const auto m = time.match(part); m.hasMatch()) return m.captured(1) + ':' + m.captured(2) + ':' + m.captured(3);
  if (const auto m = date.match(part); m.hasMatch()) return m.captured(1) + '-' + m.captured(2);
  return part;
}

/// What tells runs of `names` apart, short enough for a legend of several runs (a legend's
/// marker has a fraction of a chart's width: longer labels were cut to "soft-…04…"): the parts
/// of the names (between dashes) that differ, the attention ("soft", "hard") always, a time as
/// "14:30:12". Names that do not split alike: the kind prefix, an ellipsis and as much of the
/// end as needed.
QStringList legend_names(const QStringList& names) {
  constexpr int kMax = 16;
  if (names.size() <= 1) return names;  // alone in the legend: room for the whole name
  const int unique = int(QSet<QString>(names.begin(), names.end()).size());
  QList<QStringList> parts;
  for (const auto& n : names) parts << n.split(QLatin1Char('-'));
  const bool alike = std::all_of(parts.begin(), parts.end(), [&](const QStringList& p) { return p.size() == parts.front().size(); });
  if (alike && parts.front().size() > 1) {
    QStringList out;
    for (const auto& p : parts) {
      QStringList kept;
      for (int i = 0; i < int(p.size()); ++i) {
        const bool kind = i == 0 && (p[i] == QLatin1String("soft") || p[i] == QLatin1String("hard"));
        const bool differs = std::any_of(parts.begin(), parts.end(), [&](const QStringList& o) { return o[i] != p[i]; });
        if (kind || differs) kept << readable_part(p[i]);
      }
      out << kept.join(QLatin1Char(' '));
    }
    // A date and a time both: "soft 11-27 14:30:12", a little over kMax, still all of it telling.
    const bool fits = std::all_of(out.begin(), out.end(), [](const QString& l) { return !l.isEmpty() && l.size() <= kMax + 4; });
    if (fits && QSet<QString>(out.begin(), out.end()).size() == unique) return out;
  }
  for (int tail = 6;; ++tail) {
    QStringList out;
    for (const auto& n : names) {
      const int dash = n.indexOf(QLatin1Char('-'));
      const QString head = dash > 0 && dash < 6 ? n.left(dash + 1) : n.left(5);
      out << (n.size() <= kMax || head.size() + 1 + tail >= n.size() ? n : head + QChar(0x2026) + n.right(tail));
    }
    if (QSet<QString>(out.begin(), out.end()).size() == unique) return out;
  }
}

}  // namespace

TrainingDashboard::TrainingDashboard(QWidget* parent) : QWidget(parent), grid_(new QGridLayout(this)) {
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setSpacing(4);
  addChart("loss", tr("NLL per word"), tr("−log p"));
  addChart("penalty", tr("Doubly stochastic penalty"), tr("λ Σ(1−Σα)²"));
  addChart("reinforce", tr("REINFORCE reward; baseline dashed"), tr("log p(y|s,a)"));
  addChart("reward_var", tr("Reward variance (hard)"), tr("var(r − b)"));
  addChart("entropy", tr("Entropy of α"), tr("nats"));
  addChart("grad_norm", tr("Gradient norm (before clipping)"), tr("‖g‖"));
  addChart("lr", tr("Learning rate"), tr("lr"));
  addChart("throughput", tr("Throughput"), tr("words/s"));
  addChart("bleu4", tr("Validation BLEU-4"), tr("BLEU-4"));
  addChart("cider", tr("Validation CIDEr-D"), tr("CIDEr-D"));
  addChart("pointing", tr("Pointing; α in box dashed"), tr("% of noun phrases"));
  addChart("supervision", tr("Supervision; auxiliary dashed"), tr("loss"));
  addChart("pretraining", tr("Pretraining; held-out items: dot"), tr("% named"));
  // Self-critical training's (shown once a run has their points, as the pretraining's).
  addChart("self_critical", tr("Self-critical reward; baseline dashed"), tr("CIDEr-D"));
  addChart("advantage", tr("Advantage (reward − baseline)"), tr("CIDEr-D"));
  addChart("sample_length", tr("Sampled caption length"), tr("words"));
  addChart("end_rate", tr("Sampled captions that end"), tr("% ended"));
  addChart("faithfulness", tr("Faithful nouns (validation)"), tr("% of nouns"));
  // Long enough for the window to paint the chart just shown before the next one shows: at 0 ms,
  // two or three charts were often painted in one pass.
  show_timer_.setInterval(20);
  connect(&show_timer_, &QTimer::timeout, this, &TrainingDashboard::showNext);
  create_timer_.setInterval(0);
  connect(&create_timer_, &QTimer::timeout, this, [this] {
    if (!createNext()) create_timer_.stop();
  });
  relayout();
  curves_ = {
      {"loss", "nll", tr("NLL")},
      {"penalty", "penalty", tr("penalty")},
      {"reinforce", "reward", tr("reward"), false, true},
      {"reinforce", "baseline", tr("baseline"), true, true},
      {"reward_var", "reward_var", tr("reward variance"), false, true},
      {"entropy", "entropy", tr("H[α]")},
      {"grad_norm", "grad_norm", tr("‖g‖")},
      {"lr", "lr", tr("lr")},
      {"throughput", "tokens_per_s", tr("words/s")},
      {"bleu4", "bleu4", tr("BLEU-4")},
      {"cider", "cider", tr("CIDEr-D")},
      {"pointing", "pointing", tr("pointing")},
      {"pointing", "alpha_in_box", tr("α in box"), true},
      {"supervision", "attention_loss", tr("attention"),},
      {"supervision", "aux_loss", tr("auxiliary"), true},
      {"pretraining", "item_accuracy", tr("items named right")},
      {"pretraining", "held_out_accuracy", tr("held-out items"), true},
      {"self_critical", "sample_reward", tr("reward")},
      {"self_critical", "baseline_reward", tr("baseline"), true},
      {"advantage", "advantage", tr("advantage")},
      {"sample_length", "sample_length", tr("words")},
      {"end_rate", "end_rate", tr("% ended")},
      {"faithfulness", "faithful_rate", tr("faithful")},
  };
}

void TrainingDashboard::addChart(const QString& name, const QString& title, const QString& y_label) {
  specs_.append({name, title, y_label});
  order_ << name;
}

bool TrainingDashboard::createNext() {
  const auto next = std::find_if(specs_.begin(), specs_.end(), [&](const ChartSpec& s) { return !charts_.contains(s.name); });
  if (next == specs_.end()) return false;
  auto* c = new MetricChart(next->title, next->y_label, this);
  c->setObjectName(next->name);
  connect(c, &MetricChart::hovered, this, &TrainingDashboard::hovered);
  const int index = int(order_.indexOf(next->name));
  c->setRedrawDelay(100 + 25 * index);  // one chart per pass: the GUI thread never paints them all at once
  c->hide();  // placed by relayout()
  QSizePolicy policy = c->sizePolicy();
  policy.setRetainSizeWhenHidden(true);  // placed while hidden: its cell is kept until it shows
  c->setSizePolicy(policy);
  if (next->name == "pretraining") c->setXLabel(tr("pretraining step"));
  if (smoothing_ > 0 && next->name != "bleu4" && next->name != "cider" && next->name != "pointing" && next->name != "faithfulness" &&
      next->name != "lr") {
    c->setSmoothing(smoothing_);
  }
  if (log_scale_) c->setLogScale(true);
  charts_.insert(next->name, c);
  relayout();
  return true;
}

void TrainingDashboard::ensureCharts() const {
  auto* self = const_cast<TrainingDashboard*>(this);
  while (self->createNext()) {
  }
  self->create_timer_.stop();
}

QStringList TrainingDashboard::shownCharts() const {
  ensureCharts();
  return shown_;
}

MetricChart* TrainingDashboard::chart(const QString& name) const {
  ensureCharts();
  return charts_.value(name);
}

bool TrainingDashboard::only_with_points(const QString& name) {
  return name == "pretraining" || name == "self_critical" || name == "advantage" || name == "sample_length" ||
         name == "end_rate" || name == "faithfulness";
}

void TrainingDashboard::relayout() {
  const bool any_run = !runs_.isEmpty();
  const bool any_hard = std::any_of(runs_.begin(), runs_.end(), [](const Run& r) { return r.hard; });
  QStringList shown;
  for (const auto& name : order_) {
    if (!charts_.contains(name)) continue;  // not made yet: placed when it is
    if (any_run && (name == "reinforce" || name == "reward_var") && !any_hard) continue;
    if (any_run && only_with_points(name)) {
      const auto keys = charts_[name]->seriesKeys();
      if (std::none_of(keys.begin(), keys.end(), [&](const QString& k) { return charts_[name]->pointCount(k) > 0; })) continue;
    }
    shown << name;
  }
  const int width = std::max(1, this->width());
  const int columns = std::clamp(width / (MetricChart::minimumChartSize().width() + grid_->spacing()), 1, 3);
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
  setMinimumHeight(rows * (MetricChart::minimumChartSize().height() + grid_->spacing()));
}

void TrainingDashboard::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (painted_ && !to_show_.isEmpty()) show_timer_.start();
}

void TrainingDashboard::paintEvent(QPaintEvent* event) {
  QWidget::paintEvent(event);
  if (painted_) return;
  // Made one per turn of the event loop after this frame, then shown one per show_timer_ tick:
  // the window's first paint (a full frame) carries no chart.
  painted_ = true;
  if (charts_.size() < order_.size()) create_timer_.start();
  if (!to_show_.isEmpty()) show_timer_.start();
}

void TrainingDashboard::showNext() {
  if (!isVisible()) return show_timer_.stop();  // resumed by showEvent: shown with the window, all at once
  while (!to_show_.isEmpty()) {
    auto* c = charts_.value(to_show_.takeFirst());
    if (c && c->isHidden() && shown_.contains(c->objectName())) {
      c->show();
      break;
    }
  }
  if (to_show_.isEmpty()) show_timer_.stop();
}

void TrainingDashboard::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  relayout();
}

int TrainingDashboard::pointCount(const QString& id, const QString& metric) const {
  ensureCharts();
  return int(points(id, metric).size());
}

QVector<QPointF> TrainingDashboard::points(const QString& id, const QString& metric) const {
  ensureCharts();
  for (const auto& c : curves_) {
    if (c.metric == metric && charts_[c.chart]->hasSeries(key(id, c))) return charts_[c.chart]->rawPoints(key(id, c));
  }
  return {};
}

QColor TrainingDashboard::runColour(const QString& id) const { return runs_.value(id).colour; }

void TrainingDashboard::addRun(const QString& id, const QString& name, bool hard) {
  ensureCharts();
  if (runs_.contains(id)) return;
  reserveColour(id);
  Run run{name, hard, colours_.value(id)};
  runs_.insert(id, run);
  for (const auto& c : curves_) {
    if (c.hard_only && !hard) continue;
    // One curve per chart: the legend names the run; two curves: run and quantity.
    const bool shared = std::count_if(curves_.begin(), curves_.end(), [&](const Curve& o) { return o.chart == c.chart; }) > 1;
    auto* chart = charts_[c.chart];
    chart->addSeries(key(id, c), shared ? name + " · " + c.label : name, run.colour, c.dashed);
    if (c.dashed) chart->setInLegend(key(id, c), false);  // the title says what the dashed curve is
  }
  relabel();
  relayout();
}

void TrainingDashboard::reserveColour(const QString& id) {
  // One colour per run for the dashboard's lifetime: unticked and ticked again, resumed, finished.
  if (!colours_.contains(id)) colours_.insert(id, kRunColours[next_colour_++ % int(std::size(kRunColours))]);
}

void TrainingDashboard::removeRun(const QString& id) {
  ensureCharts();
  for (const auto& c : curves_) charts_[c.chart]->removeSeries(key(id, c));
  events_.remove(id);
  showEvents(id);
  runs_.remove(id);
  relabel();
  relayout();
}

void TrainingDashboard::relabel() {
  const QStringList ids = runs_.keys();
  QStringList names;
  for (const auto& id : ids) names << runs_[id].name;
  const QStringList shorter = legend_names(names);
  for (int i = 0; i < int(ids.size()); ++i) {
    for (const auto& c : curves_) {
      const bool shared = std::count_if(curves_.begin(), curves_.end(), [&](const Curve& o) { return o.chart == c.chart; }) > 1;
      charts_[c.chart]->setLegendLabel(key(ids[i], c), shared ? shorter[i] + " · " + c.label : shorter[i]);
    }
  }
}

void TrainingDashboard::appendValue(const QString& id, const QString& metric, double step, double value) {
  if (!std::isfinite(value)) return;
  for (const auto& c : curves_) {
    if (c.metric != metric) continue;
    auto* chart = charts_[c.chart];
    if (chart->hasSeries(key(id, c))) chart->append(key(id, c), step, value);
  }
}

void TrainingDashboard::setCurve(const QString& id, const QString& metric, const QVector<QPointF>& points) {
  for (const auto& c : curves_) {
    if (c.metric != metric) continue;
    auto* chart = charts_[c.chart];
    if (chart->hasSeries(key(id, c))) chart->setPoints(key(id, c), points);
  }
}

void TrainingDashboard::addTrainRecord(const QString& id, const fovea::TrainRecord& r) {
  ensureCharts();
  for (const auto& [metric, value] : train_values(r)) appendValue(id, metric, double(r.step), value);
  if (r.self_critical && !shown_.contains("self_critical")) relayout();
}

void TrainingDashboard::addValidationRecord(const QString& id, const fovea::ValidationRecord& v) {
  ensureCharts();
  for (const auto& [metric, value] : validation_values(v)) appendValue(id, metric, double(v.step), value);
  if (v.has_faithfulness && !shown_.contains("faithfulness")) relayout();
}

void TrainingDashboard::addPretrainRecord(const QString& id, const fovea::PretrainRecord& p) {
  ensureCharts();
  for (const auto& [metric, value] : pretrain_values(p)) appendValue(id, metric, double(p.pretrain_step), value);
  if (!shown_.contains("pretraining")) relayout();
}

void TrainingDashboard::addEvent(const QString& id, const fovea::TrainEvent& e) {
  ensureCharts();
  events_[id].append({double(e.step), QString::fromStdString(e.message)});
  showEvents(id);
}

QVector<double> TrainingDashboard::eventSteps(const QString& id) const {
  QVector<double> steps;
  for (const auto& e : events_.value(id)) steps.append(e.first);
  return steps;
}

void TrainingDashboard::showEvents(const QString& id) {
  for (const char* name : {"loss", "grad_norm", "lr"}) charts_[name]->setMarkers(id, runColour(id), events_.value(id));
}

void TrainingDashboard::loadRun(const fovea::RunLog& log) { loadCurves(run_curves(log)); }

void TrainingDashboard::loadCurves(const RunCurves& run) {
  ensureCharts();
  if (!runs_.contains(run.id)) addRun(run.id, run.name, run.hard);
  events_.remove(run.id);
  for (const auto& e : run.events) events_[run.id].append(e);
  showEvents(run.id);
  for (const auto& [metric, points] : run.curves) setCurve(run.id, metric, points);
  relayout();
}

void TrainingDashboard::setSmoothing(double weight) {
  // Noisy per-step curves only: not the validation scores (a handful of points per run), nor the
  // learning rate (a schedule, not a measurement).
  smoothing_ = weight;  // for the charts not made yet too
  for (auto it = charts_.begin(); it != charts_.end(); ++it) {
    const auto& name = it.key();
    if (name != "bleu4" && name != "cider" && name != "pointing" && name != "faithfulness" && name != "lr") it.value()->setSmoothing(weight);
  }
}

void TrainingDashboard::setLogScale(bool on) {
  log_scale_ = on;
  for (auto* c : charts_) c->setLogScale(on);
}

void TrainingDashboard::resetZoom() {
  for (auto* c : charts_) c->resetZoom();
}

}  // namespace fovea::ui
