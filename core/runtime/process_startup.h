#pragma once
/// Process start-up shared by every Fovea executable (torch-free, so the GUI's main can include it).

#include <string>
#include <vector>

namespace fovea {

/// libgomp reads OMP_WAIT_POLICY and OpenBLAS reads OPENBLAS_THREAD_TIMEOUT once, when they load:
/// by default both libraries' idle workers spin (libgomp's busily, OpenBLAS's calling sched_yield
/// for ~0.1 s after every product) and take the cores from each other's workers on small machines.
/// Call first thing in main(): when either variable is unset it sets OMP_WAIT_POLICY=PASSIVE and
/// OPENBLAS_THREAD_TIMEOUT=4 (values the user exported are kept) and re-executes the program once,
/// so users never have to export them. OPENBLAS_CORETYPE is left as the environment has it: some
/// machines set it because OpenBLAS computes wrong results on them otherwise. Where it is unset
/// and OpenBLAS, not knowing the CPU, fell back to kernels older than the CPU's instruction set,
/// it sets it to the core that fits (core/runtime/blas_core.h). It also adds
/// glibc.malloc.hugetlb=1 to GLIBC_TUNABLES unless that names it (malloc's memory in transparent
/// huge pages: a fresh 4 KB page costs ~14 µs to fault in on small VMs), and keeps freed tensor
/// memory in the heap (configure_allocator()), and flushes subnormal floats to zero
/// (flush_denormals()). Returns normally when nothing needed doing.
void prepare_process(int argc, char** argv);

/// Subnormal floats (below 1.2e-38) read and computed as zero on this thread and on the threads it
/// starts afterwards (OpenMP's workers): as training goes on, small weights, activations and
/// gradients fall there, and the CPU takes a slow path for each. Recipe steps from a trained
/// model: 1-2% shorter. A no-op where the CPU has no SSE control register.
void flush_denormals();

/// Whether this thread flushes subnormal floats to zero (false where flush_denormals() cannot).
bool denormals_flushed();

/// The arguments main() was given after the program's name (as prepare_process() saw them), for
/// commands that start copies of the program (`fovea train --processes N`).
const std::vector<std::string>& process_arguments();

}  // namespace fovea
