#pragma once
/// An exception's message as a user should read it: LibTorch's c10::Error appends a C++ backtrace
/// ("Exception raised from ... frame #0 ...") to what(); its what_without_backtrace() is the reason
/// alone. Use this wherever the core wraps or passes on a message that may come from LibTorch.
#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace fovea {

inline std::string error_text(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) return c10_error->what_without_backtrace();
  return e.what();
}

}  // namespace fovea
