#pragma once
/// Process start-up for every Fovea executable (torch-free, so the GUI's main can include it).

namespace fovea {

/// libgomp reads OMP_WAIT_POLICY once, when it loads: with the default (spinning) policy its
/// idle workers fight OpenBLAS's threads on small machines. Call first thing in main(): when the
/// variable is unset it sets OMP_WAIT_POLICY=PASSIVE and re-executes the program once, so users
/// never have to export it themselves. Returns normally when nothing needed doing.
void reexec_with_thread_environment(int argc, char** argv);

}  // namespace fovea
