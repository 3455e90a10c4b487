#pragma once
/// fovea-ui-bench --case runs_folder: the GUI thread's longest block while the training window
/// opens a runs folder of many long runs.
#include <QApplication>

namespace fovea::ui_bench {

/// Writes `runs` run folders of `steps` logged steps each (metrics.jsonl in the trainer's format,
/// a validation every 1000 steps, config.json) under a temporary folder, then opens the training
/// window on it with a 1 ms timer ticking; prints one JSON line; returns the exit code.
int runs_folder_case(QApplication& app, int runs, int steps);

}  // namespace fovea::ui_bench
