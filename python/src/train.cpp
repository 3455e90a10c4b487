// fovea.train and fovea.resume: the Python face of core/train/trainer.h, as `fovea train` and
// `fovea train --resume` run it. The GIL is released while training; the callbacks take it.
#include <pybind11/stl.h>

#include <atomic>
#include <filesystem>
#include <map>

#include "core/runtime/error_text.h"
#include "core/train/resume_settings.h"
#include "core/train/run_lock.h"
#include "core/train/train_settings.h"
#include "core/train/trainer.h"
#include "python/src/bindings.h"
#include "python/src/convert.h"
#include "python/src/core_call.h"

namespace fovea::py {

namespace {

/// The callbacks a run calls on its own thread, into Python. An exception a callback raises (a
/// KeyboardInterrupt too) stops the run at the next step, which writes its checkpoint; it is
/// raised again once the run has stopped.
struct PythonCallbacks {
  PythonCallbacks(pyb::object progress_, pyb::object messages_)
      : progress(std::move(progress_)), messages(std::move(messages_)) {}
  pyb::object progress, messages;
  std::atomic<bool> stop{false};
  std::unique_ptr<pyb::error_already_set> error;

  void call(const pyb::object& f, const pyb::object& arg) {
    if (error) return;
    try {
      if (PyErr_CheckSignals() != 0) throw pyb::error_already_set();
      if (f.is_none()) return;
      const pyb::object r = f(arg);
      if (pyb::isinstance<pyb::bool_>(r) && !r.cast<bool>()) stop = true;
    } catch (pyb::error_already_set& e) {
      error = std::make_unique<pyb::error_already_set>(std::move(e));
      stop = true;
    }
  }

  TrainCallbacks make() {
    TrainCallbacks cb;
    cb.stop = &stop;
    cb.on_progress = [this](const TrainProgress& p) {
      pyb::gil_scoped_acquire locked;
      pyb::dict d;
      d["kind"] = p.step == 0 && p.pretrain_steps > 0 ? "pretrain" : "step";
      d["step"] = p.step;
      d["total_steps"] = p.total_steps;
      d["epoch"] = p.epoch;
      d["epochs"] = p.epochs;
      d["loss"] = p.loss;
      d["tokens_per_s"] = p.tokens_per_s;
      d["eta_s"] = p.eta_s;
      d["elapsed_s"] = p.elapsed_s;
      d["pretrain_step"] = p.pretrain_step;
      d["pretrain_steps"] = p.pretrain_steps;
      call(progress, d);
    };
    cb.on_validation = [this](const ValidationRecord& v) {
      pyb::gil_scoped_acquire locked;
      pyb::dict d = to_python(to_json(v));
      d["kind"] = "validation";
      call(progress, d);
    };
    cb.on_message = [this](const std::string& text) {
      pyb::gil_scoped_acquire locked;
      if (messages.is_none()) {
        pyb::module_::import("sys").attr("stderr").attr("write")(text + "\n");
      } else {
        call(messages, pyb::str(text));
      }
    };
    return cb;
  }

  /// Raises what a callback raised, if anything.
  void raise_pending() {
    if (error) {
      auto e = std::move(error);
      throw std::move(*e);
    }
  }
};

/// Runs `body` without the GIL; a run that fails says so in its folder (when it owns it), as
/// `fovea train` does, and the error reaches Python with the core's message.
TrainResult run(const std::string& run_dir, bool owns_folder, PythonCallbacks& callbacks,
                const std::function<TrainResult()>& body) {
  TrainResult r;
  try {
    CoreCall unlocked;
    r = body();
  } catch (const RunFolderBusy&) {
    throw;
  } catch (const ResumeRefused&) {
    throw;  // nothing was started: the run stays resumable
  } catch (const std::exception& e) {
    if (owns_folder) record_run_failure(run_dir, error_text(e));
    callbacks.raise_pending();
    throw;
  }
  callbacks.raise_pending();
  return r;
}

}  // namespace

void bind_train(pyb::module_& m) {
  pyb::class_<TrainResult>(m, "TrainResult", "What a training run did: steps, epochs, best validation BLEU-4, checkpoints.")
      .def_readonly("steps", &TrainResult::steps, "Captioning steps in all (a resumed run: with those before)")
      .def_readonly("epochs_completed", &TrainResult::epochs_completed)
      .def_readonly("best_bleu4", &TrainResult::best_bleu4, "The best validation BLEU-4")
      .def_readonly("best_step", &TrainResult::best_step, "The step of best_bleu4 (best.ckpt)")
      .def_readonly("stopped_early", &TrainResult::stopped_early, "Early stopping on validation BLEU-4")
      .def_readonly("interrupted", &TrainResult::interrupted, "Stopped by the progress callback (last.ckpt holds the step)")
      .def_readonly("elapsed_s", &TrainResult::elapsed_s)
      .def_readonly("precision", &TrainResult::precision, "\"fp32\" or \"bf16\", as the run trained")
      .def_readonly("last_checkpoint", &TrainResult::last_checkpoint)
      .def_readonly("best_checkpoint", &TrainResult::best_checkpoint)
      .def("__repr__", [](const TrainResult& r) {
        return "<fovea.TrainResult steps=" + std::to_string(r.steps) + " best_bleu4=" + std::to_string(r.best_bleu4) +
               (r.interrupted ? " interrupted" : r.stopped_early ? " stopped early" : "") + ">";
      });

  m.def("_train", [](const std::string& out_dir, const pyb::dict& settings, bool paper, pyb::object progress, pyb::object messages) {
    if (out_dir.empty()) throw pyb::value_error("out_dir: give the run folder to write");
    TrainConfig config = train_config_from_python(settings);
    config.out_dir = out_dir;
    if (paper) apply_paper_objective(config);
    PythonCallbacks callbacks{std::move(progress), std::move(messages)};
    const TrainCallbacks cb = callbacks.make();
    const bool owns_folder = !std::filesystem::exists(metrics_path(out_dir));
    return run(out_dir, owns_folder, callbacks, [&] { return train(config, cb); });
  });

  m.def("_resume", [](const std::string& run_dir, const pyb::dict& settings, pyb::object progress, pyb::object messages) {
    std::map<std::string, SettingValue> given;
    const TrainConfig changed = train_config_from_python(settings);
    for (const auto& kv : settings) {
      const auto& s = train_setting(pyb::str(kv.first).cast<std::string>());
      given[s.key] = s.get(changed);
    }
    PythonCallbacks callbacks{std::move(progress), std::move(messages)};
    const TrainCallbacks cb = callbacks.make();
    clear_run_failure(run_dir);
    return run(run_dir, true, callbacks, [&] { return resume_training(run_dir, cb, TrainData{}, given); });
  });
}

}  // namespace fovea::py
