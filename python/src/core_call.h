#pragma once
// How the module runs a core function: without the GIL (other Python threads go on), and with
// the floating-point state every Fovea program runs with (subnormal floats flushed to zero,
// core/runtime/process_startup.h: faster, and the same numbers as the `fovea` program), the
// caller's own state restored afterwards so Python and NumPy keep theirs.
#include <pybind11/pybind11.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "core/runtime/process_startup.h"

namespace fovea::py {

class FloatStateOfTheCore {
 public:
  FloatStateOfTheCore() {
#if defined(__SSE__)
    saved_ = _mm_getcsr();
#endif
    flush_denormals();
  }
  ~FloatStateOfTheCore() {
#if defined(__SSE__)
    _mm_setcsr(saved_);
#endif
  }
  FloatStateOfTheCore(const FloatStateOfTheCore&) = delete;
  FloatStateOfTheCore& operator=(const FloatStateOfTheCore&) = delete;

 private:
  unsigned int saved_ = 0;
};

/// Declare one around a call into the core: the GIL released, the core's floating-point state.
struct CoreCall {
  pybind11::gil_scoped_release unlocked;
  FloatStateOfTheCore float_state;
};

}  // namespace fovea::py
