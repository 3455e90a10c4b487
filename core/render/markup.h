#pragma once
/// Text placed in XML or HTML (an SVG figure's labels, a web page's captions).
#include <string>

namespace fovea {

/// `text` with &, <, > and " written as entities.
inline std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace fovea
