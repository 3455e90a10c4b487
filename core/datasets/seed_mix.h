#pragma once
/// SplitMix64's mixing step, from which the built-in datasets derive each scene's and each clip's
/// seed (the same seed and index give the same scene on every machine).
#include <cstdint>

namespace fovea {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace fovea
