#pragma once
/// Background work that must not make the GUI stutter: a training run in fovea-studio shares the
/// cores with the GUI thread, and at equal priority the GUI thread waited for a core for up to
/// ~20 ms at a time while a caption animated (fovea bench --case ui_latency).

namespace fovea::ui {

/// Nice value the training thread (and the threads it starts) runs at: the GUI thread takes a
/// core the moment it wakes, and training still gets every cycle the GUI does not use.
inline constexpr int kTrainingThreadNice = 10;

/// Lowers the calling thread's scheduling priority to `nice` (Linux: per-thread nice value, which
/// threads it creates afterwards inherit). False where the system does not support it or refuses.
bool lower_current_thread_priority(int nice);

/// The nice value of the calling thread (0 where unknown).
int current_thread_nice();

}  // namespace fovea::ui
