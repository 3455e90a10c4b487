#pragma once
/// fovea bench --case live (app/bench/bench_live.cpp): frames a second of decode + resize + caption +
/// α overlay on a generated 640x480 clip, greedy and beam 3; one JSON line each.
#include <string>

namespace fovea::cli {

/// Best of up to 3 passes over the clip after up to 1 warm-up pass.
void bench_live(const std::string& model, const std::string& device, int threads, int warmup, int repeat);

}  // namespace fovea::cli
