#include "app/cli/option_checks.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace fovea::cli {

CLI::Validator at_least(long long minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) {
          return "expected a whole number, got '" + text + "'";
        }
        if (value < minimum) return "must be >= " + std::to_string(minimum) + ", got " + text;
        return {};
      },
      ">= " + std::to_string(minimum));
}

}  // namespace fovea::cli
