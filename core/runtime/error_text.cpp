#include "core/runtime/error_text.h"

#include <c10/util/Exception.h>

namespace fovea {

std::string error_text(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

}  // namespace fovea
