#pragma once
/// Process start-up for every Fovea executable (torch-free, so the GUI's main can include it).

namespace fovea {

/// libgomp reads OMP_WAIT_POLICY and OpenBLAS reads OPENBLAS_THREAD_TIMEOUT once, when they
/// load: by default both libraries' idle workers spin (libgomp's busily, OpenBLAS's calling
/// sched_yield for ~0.1 s after every product) and take the cores from each other's workers on
/// small machines. Call first thing in main(): when either variable is unset it sets
/// OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT=4 (values the user exported are kept) and
/// re-executes the program once, so users never have to export them. Returns normally when
/// nothing needed doing. Also applies configure_allocator().
void reexec_with_thread_environment(int argc, char** argv);

/// Keeps freed tensor memory in the heap for reuse: glibc serves blocks over 128 KiB-32 MiB with
/// fresh mmap()s and returns them on free, so every large activation and gradient of a training
/// step paid page faults and kernel zeroing again (the decoder step at the reference sizes: 0.8 s
/// median, 1.6 s worst, against 0.65 s steady with this). Safe to call more than once.
void configure_allocator();

}  // namespace fovea
