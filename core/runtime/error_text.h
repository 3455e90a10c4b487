#pragma once
/// An exception's message as a user should read it: LibTorch's c10::Error appends a C++ backtrace
/// ("Exception raised from ... frame #0 ...") to what(); its what_without_backtrace() is the reason
/// alone. Use this wherever the core wraps or passes on a message that may come from LibTorch.
/// Source locations that libraries put before their messages ("[./gloo/transport/tcp/pair.cc:598]
/// Connection closed by peer") are left out too: they say where in their code, not what happened.
#include <c10/util/Exception.h>

#include <cctype>
#include <exception>
#include <string>

namespace fovea {

/// `text` without "[FILE.cc:LINE] " source locations (.c, .cc, .cpp, .h, .hpp files).
inline std::string without_source_locations(std::string text) {
  std::size_t at = 0;
  while ((at = text.find('[', at)) != std::string::npos) {
    const auto end = text.find(']', at);
    if (end == std::string::npos) break;
    const std::string inside = text.substr(at + 1, end - at - 1);
    const auto colon = inside.rfind(':');
    bool location = colon != std::string::npos && colon + 1 < inside.size() && inside.find(' ') == std::string::npos;
    for (std::size_t i = colon + 1; location && i < inside.size(); ++i) location = std::isdigit(static_cast<unsigned char>(inside[i])) != 0;
    if (location) {
      const std::string file = inside.substr(0, colon);
      location = false;
      for (const char* ext : {".c", ".cc", ".cpp", ".h", ".hpp"}) {
        const std::string e = ext;
        location = location || (file.size() > e.size() && file.compare(file.size() - e.size(), e.size(), e) == 0);
      }
    }
    if (!location) {
      ++at;
      continue;
    }
    text.erase(at, end + 1 - at + (end + 1 < text.size() && text[end + 1] == ' ' ? 1 : 0));
  }
  return text;
}

inline std::string error_text(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) return without_source_locations(c10_error->what_without_backtrace());
  return without_source_locations(e.what());
}

}  // namespace fovea
