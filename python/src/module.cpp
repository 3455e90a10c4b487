// fovea._core: the core's functions for Python (the fovea package, python/fovea/, is its face).
// Errors reach Python as exceptions carrying the core's messages, without LibTorch's backtraces.
#include <pybind11/pybind11.h>

#include <stdexcept>

#include "core/runtime/data_paths.h"
#include "core/runtime/error_text.h"
#include "core/runtime/runtime.h"
#include "core/train/run_lock.h"
#include "python/src/bindings.h"

namespace pyb = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "The compiled part of the fovea package (see help(fovea)).";
  m.attr("__version__") = FOVEA_VERSION;
  fovea::configure_allocator();  // as every Fovea program starts (core/runtime/process_startup.h)
  static pyb::exception<std::runtime_error> error(m, "Error", PyExc_RuntimeError);
  error.doc() = "An error the Fovea core reported (a file missing or unreadable, a model that does not load, ...)";
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const pyb::builtin_exception&) {
      throw;  // pybind11's own (TypeError, ValueError, ...): as they are
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, fovea::error_text(e).c_str());
    } catch (const std::out_of_range& e) {
      PyErr_SetString(PyExc_IndexError, fovea::error_text(e).c_str());
    } catch (const std::exception& e) {
      PyErr_SetString(error.ptr(), fovea::error_text(e).c_str());
    }
  });

  fovea::py::bind_results(m);
  fovea::py::bind_model(m);
  fovea::py::bind_settings(m);
  fovea::py::bind_train(m);
  fovea::py::bind_runs(m);
  fovea::py::bind_pages(m);

  m.def("set_threads", [](int threads) {
    if (threads < 0) throw pyb::value_error("set_threads(" + std::to_string(threads) + "): threads must be 0 (the default) or more");
    fovea::configure_threads(threads);
  }, pyb::arg("threads"),
        "set_threads(threads)\n\nCPU threads the core's operations use (as `fovea bench --threads`; 0: OMP_NUM_THREADS,\n"
        "else one per core). The same setting as torch.set_num_threads: they share LibTorch.");
  m.def("_add_data_root", &fovea::add_data_root, "Where else to look for the shipped models and samples");
  m.def("default_model_path", &fovea::default_model_path,
        "default_model_path() -> str\n\nThe model fovea.load() opens without a path: $FOVEA_MODEL, else the shipped soft model.");
  m.def("samples_dir", &fovea::samples_dir,
        "samples_dir() -> str\n\nThe folder of the shipped sample scenes (PNG files and their captions.json), or ''.");
}
