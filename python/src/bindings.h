#pragma once
// The parts of the fovea._core module, each bound in its own file, and the settings tables
// read from Python keyword arguments.
#include <pybind11/pybind11.h>

#include "core/decode/caption_result.h"
#include "core/train/train_config.h"

namespace fovea::py {

void bind_results(pybind11::module_& m);   // results.cpp: Result, Word
void bind_model(pybind11::module_& m);     // model.cpp: _Model (caption, score, probe, take away)
void bind_settings(pybind11::module_& m);  // settings.cpp: the caption and training settings tables
void bind_train(pybind11::module_& m);     // train.cpp: _train, _resume, TrainResult
void bind_runs(pybind11::module_& m);      // runs.cpp: read_run, score
void bind_pages(pybind11::module_& m);     // pages.cpp: _web_page (Result.to_html)

/// The caption settings given as keyword arguments (beam, greedy, max_len, sample_glimpses,
/// seed; the caption settings table's keys), checked against the table's ranges. Raises
/// TypeError for a key the table does not have, ValueError for a value out of range.
CaptionOptions caption_options_from_python(const pybind11::dict& settings);

/// The recommended training config with these training settings (the training settings
/// table's keys) applied, each checked as `fovea train` checks its options.
TrainConfig train_config_from_python(const pybind11::dict& settings);

}  // namespace fovea::py
