#pragma once
/// Process start-up for every Fovea executable (torch-free, so the GUI's main can include it).
#include <string>
#include <vector>

namespace fovea {

/// libgomp reads OMP_WAIT_POLICY and OpenBLAS reads OPENBLAS_THREAD_TIMEOUT once, when they
/// load: by default both libraries' idle workers spin (libgomp's busily, OpenBLAS's calling
/// sched_yield for ~0.1 s after every product) and take the cores from each other's workers on
/// small machines. Call first thing in main(): when either variable is unset it sets
/// OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT=4 (values the user exported are kept) and
/// re-executes the program once, so users never have to export them. It also replaces an
/// OPENBLAS_CORETYPE that names an AVX2-or-older core on a CPU with AVX-512 (see
/// openblas_coretype_for()). Returns normally when nothing needed doing. Also applies
/// configure_allocator().
void reexec_with_thread_environment(int argc, char** argv);

/// The flags of the first CPU in /proc/cpuinfo (empty where there is none).
std::vector<std::string> cpu_flags();

/// What OPENBLAS_CORETYPE should be for Fovea, given its current value (null: unset) and the
/// CPU's flags; returns `current` (or "" when unset) to leave it. Machines that export a kernel
/// family older than their CPU (these VMs set Haswell on an AVX-512 EPYC) make OpenBLAS multiply
/// with AVX2: the 1024³ sgemm runs at 65 GFLOP/s instead of 95, the decoder's fp32 training step
/// takes 0.61 s instead of 0.44 (docs/performance.md). A core name without AVX-512 on a CPU with
/// avx512f/bw/dq/vl becomes SkylakeX (Cooperlake with avx512_bf16); AVX-512 names and unset
/// stay. FOVEA_OPENBLAS_CORETYPE, when set, wins: a core name, or "keep" to leave the variable.
std::string openblas_coretype_for(const char* current, const char* fovea_choice, const std::vector<std::string>& flags);

/// Keeps freed tensor memory in the heap for reuse: glibc serves blocks over 128 KiB-32 MiB with
/// fresh mmap()s and returns them on free, so every large activation and gradient of a training
/// step paid page faults and kernel zeroing again (the decoder step at the reference sizes: 0.8 s
/// median, 1.6 s worst, against 0.65 s steady with this). Safe to call more than once.
void configure_allocator();

}  // namespace fovea
