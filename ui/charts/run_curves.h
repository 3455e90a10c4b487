#pragma once
/// What the dashboards draw of a run, as plain values: for each metric its (step, value) points,
/// and the run's events. Built from a RunLog on the thread that read it, so that showing a run of
/// many thousand steps hands the GUI thread finished point lists (setting them is cheap; building
/// them took 6 to 7 ms for a run of 10,000 logged steps).
#include <QPair>
#include <QPointF>
#include <QString>
#include <QVector>

#include "core/train/run_log.h"
#include "core/train/train_records.h"

namespace fovea::ui {

/// (metric, value) pairs one record gives the charts, e.g. ("nll", 2.31).
using MetricValues = QVector<QPair<const char*, double>>;

/// A training step's metrics (the REINFORCE ones only for a hard run's records).
MetricValues train_values(const fovea::TrainRecord& r);
/// A validation's scores (pointing and α in box, in percent, only with grounding).
MetricValues validation_values(const fovea::ValidationRecord& v);
/// A pretraining record's share of items named right, and the held-out share when measured.
MetricValues pretrain_values(const fovea::PretrainRecord& p);

struct RunCurves {
  QString id, name;  ///< the run folder, and its name
  bool hard = false;
  QVector<QPair<double, QString>> events;              ///< (step, message)
  QVector<QPair<QString, QVector<QPointF>>> curves;    ///< (metric, finite points in log order)
};

/// Every metric's points of `log`, the non-finite values left out.
RunCurves run_curves(const fovea::RunLog& log);

}  // namespace fovea::ui
