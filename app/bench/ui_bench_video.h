#pragma once
/// fovea-ui-bench --case video: the GUI thread's longest block while fovea-studio plays a 640x480
/// clip, captioned live.
#include <QApplication>

namespace fovea::ui_bench {

/// Writes a 640x480 clip of moving scenes (25 frames a second) to a temporary folder, plays it in
/// a window with the shipped model (looping) for `seconds` with a 1 ms timer ticking on the GUI
/// thread; prints one JSON line (the longest and the 99th-percentile block, frames shown);
/// returns the exit code.
int video_case(QApplication& app, double seconds, int beam);

}  // namespace fovea::ui_bench
