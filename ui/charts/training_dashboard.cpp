#include "ui/charts/training_dashboard.h"

#include <QPointF>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>

#include "ui/charts/chart_grid.h"
#include "ui/charts/chart_markers.h"
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
/// of the names (between dashes, an exponent's kept) that differ, the attention ("soft", "hard") always, a time as
/// "14:30:12". Names that do not split alike: the kind prefix, an ellipsis and as much of the
/// end as needed.
QStringList legend_names(const QStringList& names) {
  constexpr int kMax = 16;
  if (names.size() <= 1) return names;  // alone in the legend: room for the whole name
  const int unique = int(QSet<QString>(names.begin(), names.end()).size());
  QList<QStringList> parts;
  // Dashes split the parts, except an exponent's ("lr-2e-4" is "lr" and "2e-4").
  static const QRegularExpression dash(QStringLiteral("(?<![0-9][eE])-"));
  for (const auto& n : names) parts << n.split(dash);
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

/// A run's curve of `metric` as its chart keys it.
QString series_key(const QString& id, const QString& metric) { return id + "|" + metric; }

}  // namespace

TrainingDashboard::TrainingDashboard(QWidget* parent) : QWidget(parent), grid_(new ChartGrid(this)) {
  connect(grid_, &ChartGrid::hovered, this, &TrainingDashboard::hovered);
  grid_->add("loss", tr("NLL per word"), tr("−log p"));
  grid_->add("penalty", tr("Doubly stochastic penalty"), tr("λ Σ(1−Σα)²"));
  grid_->add("reinforce", tr("REINFORCE reward; baseline dashed"), tr("log p(y|s,a)"));
  grid_->add("reward_var", tr("Reward variance (hard)"), tr("var(r − b)"));
  grid_->add("entropy", tr("Entropy of α"), tr("nats"));
  grid_->add("grad_norm", tr("Gradient norm (before clipping)"), tr("‖g‖"));
  grid_->add("lr", tr("Learning rate"), tr("lr"));
  grid_->add("throughput", tr("Throughput"), tr("words/s"));
  grid_->add("bleu4", tr("Validation BLEU-4"), tr("BLEU-4"));
  grid_->add("cider", tr("Validation CIDEr-D"), tr("CIDEr-D"));
  grid_->add("pointing", tr("Pointing; α in box dashed"), tr("% of noun phrases"));
  grid_->add("supervision", tr("Supervision; auxiliary dashed"), tr("loss"));
  grid_->add("pretraining", tr("Pretraining; held-out items: dot"), tr("% named"));
  // Self-critical training's (shown once a run has their points, as the pretraining's).
  grid_->add("self_critical", tr("Self-critical reward; baseline dashed"), tr("CIDEr-D"));
  grid_->add("advantage", tr("Advantage (reward − baseline): mean; RMS dashed"), tr("CIDEr-D"));
  grid_->add("sample_length", tr("Sampled caption length"), tr("words"));
  grid_->add("end_rate", tr("Sampled captions that end"), tr("% ended"));
  grid_->add("faithfulness", tr("Faithful nouns (validation)"), tr("% of nouns"));
  grid_->relayout();
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
      {"advantage", "advantage", tr("mean")},
      {"advantage", "advantage_rms", tr("RMS"), true},
      {"sample_length", "sample_length", tr("words")},
      {"end_rate", "end_rate", tr("% ended")},
      {"faithfulness", "faithful_rate", tr("faithful")},
  };
}

QStringList TrainingDashboard::shownCharts() const { return grid_->shown(); }

MetricChart* TrainingDashboard::chart(const QString& name) const { return grid_->chart(name); }

QStringList TrainingDashboard::chartNames() const { return grid_->names(); }

int TrainingDashboard::columns() const { return grid_->columns(); }

void TrainingDashboard::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  grid_->resumeShowing();
}

void TrainingDashboard::paintEvent(QPaintEvent* event) {
  QWidget::paintEvent(event);
  grid_->startShowing();
}

void TrainingDashboard::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  grid_->relayout();
}

int TrainingDashboard::pointCount(const QString& id, const QString& metric) const {
  return int(points(id, metric).size());
}

QVector<QPointF> TrainingDashboard::points(const QString& id, const QString& metric) const {
  for (const auto& c : curves_) {
    if (c.metric != metric) continue;
    auto* chart = grid_->chart(c.chart);
    if (chart->hasSeries(series_key(id, metric))) return chart->rawPoints(series_key(id, metric));
  }
  return {};
}

QColor TrainingDashboard::runColour(const QString& id) const { return runs_.value(id).colour; }

void TrainingDashboard::addRun(const QString& id, const QString& name, bool hard) {
  if (runs_.contains(id)) return;
  reserveColour(id);
  Run run{name, hard, colours_.value(id)};
  runs_.insert(id, run);
  for (const auto& c : curves_) {
    if (c.hard_only && !hard) continue;
    // One curve per chart: the legend names the run; two curves: run and quantity.
    const bool shared = std::count_if(curves_.begin(), curves_.end(), [&](const Curve& o) { return o.chart == c.chart; }) > 1;
    auto* chart = grid_->chart(c.chart);
    chart->addSeries(series_key(id, c.metric), shared ? name + " · " + c.label : name, run.colour, c.dashed);
    if (c.dashed) chart->setInLegend(series_key(id, c.metric), false);  // the title says what the dashed curve is
  }
  relabel();
  grid_->setRunKinds(!runs_.isEmpty(), std::any_of(runs_.begin(), runs_.end(), [](const Run& r) { return r.hard; }));
}

void TrainingDashboard::reserveColour(const QString& id) {
  // One colour per run for the dashboard's lifetime: unticked and ticked again, resumed, finished.
  if (!colours_.contains(id)) colours_.insert(id, kRunColours[next_colour_++ % int(std::size(kRunColours))]);
}

void TrainingDashboard::removeRun(const QString& id) {
  for (const auto& c : curves_) grid_->chart(c.chart)->removeSeries(series_key(id, c.metric));
  events_.remove(id);
  showEvents(id);
  runs_.remove(id);
  relabel();
  grid_->setRunKinds(!runs_.isEmpty(), std::any_of(runs_.begin(), runs_.end(), [](const Run& r) { return r.hard; }));
}

void TrainingDashboard::relabel() {
  const QStringList ids = runs_.keys();
  QStringList names;
  for (const auto& id : ids) names << runs_[id].name;
  const QStringList shorter = legend_names(names);
  for (int i = 0; i < int(ids.size()); ++i) {
    for (const auto& c : curves_) {
      const bool shared = std::count_if(curves_.begin(), curves_.end(), [&](const Curve& o) { return o.chart == c.chart; }) > 1;
      grid_->chart(c.chart)->setLegendLabel(series_key(ids[i], c.metric), shared ? shorter[i] + " · " + c.label : shorter[i]);
    }
  }
}

void TrainingDashboard::appendValue(const QString& id, const QString& metric, double step, double value) {
  if (!std::isfinite(value)) return;
  for (const auto& c : curves_) {
    if (c.metric != metric) continue;
    auto* chart = grid_->chart(c.chart);
    if (chart->hasSeries(series_key(id, c.metric))) chart->append(series_key(id, c.metric), step, value);
  }
}

void TrainingDashboard::setCurve(const QString& id, const QString& metric, const QVector<QPointF>& points) {
  for (const auto& c : curves_) {
    if (c.metric != metric) continue;
    auto* chart = grid_->chart(c.chart);
    if (chart->hasSeries(series_key(id, c.metric))) chart->setPoints(series_key(id, c.metric), points);
  }
}

void TrainingDashboard::addTrainRecord(const QString& id, const fovea::TrainRecord& r) {
  for (const auto& [metric, value] : train_values(r)) appendValue(id, metric, double(r.step), value);
  if (r.self_critical && !grid_->shown().contains("self_critical")) grid_->relayout();
}

void TrainingDashboard::addValidationRecord(const QString& id, const fovea::ValidationRecord& v) {
  for (const auto& [metric, value] : validation_values(v)) appendValue(id, metric, double(v.step), value);
  if (v.has_faithfulness && !grid_->shown().contains("faithfulness")) grid_->relayout();
}

void TrainingDashboard::addPretrainRecord(const QString& id, const fovea::PretrainRecord& p) {
  for (const auto& [metric, value] : pretrain_values(p)) appendValue(id, metric, double(p.pretrain_step), value);
  if (!grid_->shown().contains("pretraining")) grid_->relayout();
}

void TrainingDashboard::addEvent(const QString& id, const fovea::TrainEvent& e) {
  events_[id].append({double(e.step), QString::fromStdString(e.message)});
  showEvents(id);
}

QVector<double> TrainingDashboard::eventSteps(const QString& id) const {
  QVector<double> steps;
  for (const auto& e : events_.value(id)) steps.append(e.first);
  return steps;
}

void TrainingDashboard::showEvents(const QString& id) {
  for (const char* name : {"loss", "grad_norm", "lr"}) grid_->chart(name)->markers()->set(id, runColour(id), events_.value(id));
}

void TrainingDashboard::loadRun(const fovea::RunLog& log) { loadCurves(run_curves(log)); }

void TrainingDashboard::loadCurves(const RunCurves& run) {
  if (!runs_.contains(run.id)) addRun(run.id, run.name, run.hard);
  events_.remove(run.id);
  for (const auto& e : run.events) events_[run.id].append(e);
  showEvents(run.id);
  for (const auto& [metric, points] : run.curves) setCurve(run.id, metric, points);
  grid_->relayout();
}

void TrainingDashboard::setSmoothing(double weight) { grid_->setSmoothing(weight); }

void TrainingDashboard::setLogScale(bool on) { grid_->setLogScale(on); }

void TrainingDashboard::resetZoom() { grid_->resetZoom(); }

}  // namespace fovea::ui
