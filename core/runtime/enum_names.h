#pragma once
/// Enums read and written as words (settings, model files, the command line): each enum's words
/// are listed once, in a table that reading and writing both use.
#include <cstddef>
#include <string>

namespace fovea {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// The value named `name` in `names`; null where none is.
template <class E, std::size_t N>
const E* enum_named(const EnumName<E> (&names)[N], const std::string& name) {
  for (const auto& n : names) {
    if (name == n.name) return &n.value;
  }
  return nullptr;
}

/// The first name of `value` in `names`; `fallback` where it has none.
template <class E, std::size_t N>
std::string name_of(const EnumName<E> (&names)[N], E value, const char* fallback) {
  for (const auto& n : names) {
    if (n.value == value) return n.name;
  }
  return fallback;
}

/// The names, quoted, for a message: "'a', 'b' or 'c'".
template <class E, std::size_t N>
std::string quoted_names(const EnumName<E> (&names)[N]) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    out += i == 0 ? "" : i + 1 == N ? " or " : ", ";
    out += std::string("'") + names[i].name + "'";
  }
  return out;
}

}  // namespace fovea
