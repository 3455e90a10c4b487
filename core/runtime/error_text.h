#pragma once
/// What an exception says, for a person: LibTorch's errors without their C++ backtrace (frame
/// lists and source paths are for debuggers, not users).
#include <exception>
#include <string>

namespace fovea {

std::string error_text(const std::exception& e);

}  // namespace fovea
