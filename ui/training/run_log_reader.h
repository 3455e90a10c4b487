#pragma once
/// Reads a whole run folder (core/train/run_log.h: metrics, samples, config) on a thread of its
/// own and hands the RunLog, a plain value, to `done` on the GUI thread; `failed` gets the error.
/// Nothing arrives once `context` is gone. `on_worker`, when given, changes the log on the reading
/// thread first (what it throws goes to `failed`). For the dashboards and the sample gallery of a run the
/// user picks, so that picking never blocks the GUI thread.
#include <QObject>
#include <QString>

#include <functional>

#include "core/train/run_log.h"

namespace fovea::ui {

void read_run_log_async(QObject* context, const QString& dir, bool with_samples,
                        std::function<void(const fovea::RunLog&)> done, std::function<void(const QString&)> failed = {},
                        std::function<void(fovea::RunLog&)> on_worker = {});

}  // namespace fovea::ui
