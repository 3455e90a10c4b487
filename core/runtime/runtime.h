#pragma once
/// Process-level set-up: device choice and CPU threading.
#include <string>

#include <vector>

#include "core/runtime/torch_compat.h"

namespace fovea {

/// "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". Throws when CUDA is
/// asked for and not available, saying so.
torch::Device resolve_device(const std::string& name);

/// Sets LibTorch's intra-op thread count (<= 0: one per core).
void configure_threads(int threads);

/// The thread count of LibTorch's and OpenBLAS's operators alone (configure_threads without the
/// process set-up): the parts of a split batch (core/train/decoder_pass.h) run on one thread each.
void set_operator_threads(int threads);

/// OpenBLAS's thread count alone (one pool for the whole process; nothing when the BLAS is not OpenBLAS).
void set_blas_threads(int threads);

/// The first CPU's model name in /proc/cpuinfo ("AMD EPYC 9R45 ..."), empty where there is none.
std::string cpu_model_name();

/// The flags of the first CPU in /proc/cpuinfo (empty where there is none).
std::vector<std::string> cpu_flags();

/// Keeps freed tensor memory in the heap for reuse: glibc serves large blocks with fresh mmap()s
/// and returns them on free, so every large activation and gradient of a training step paid page
/// faults and kernel zeroing again. Safe to call more than once.
void configure_allocator();

/// Whether this CPU multiplies bfloat16 in hardware (AVX-512 BF16 or AMX-BF16 in /proc/cpuinfo;
/// false where that file is absent, or where DNNL_MAX_CPU_ISA caps oneDNN below those kernels). Without it oneDNN emulates bf16 and it is slower than fp32.
bool cpu_has_native_bf16();

/// Whether oneDNN multiplies bfloat16 with AMX here: AMX-BF16 in /proc/cpuinfo and DNNL_MAX_CPU_ISA
/// unset, ALL, or naming an AMX level.
bool cpu_multiplies_bf16_with_amx();

/// The precision a training run uses where it does not time them: "fp32" or "bf16" as asked, and
/// fp32 for "auto" (which a training run on the CPU settles by timing both:
/// core/train/precision_trial.h). Throws for bf16 on a non-CPU device or a CPU without bf16 products.
std::string resolve_precision(const std::string& precision, const torch::Device& device);

/// The CPU kernels this process runs, which differ between machines and decide both speed and the
/// last bits of results: ATen's vector capability (AVX512, AVX2 or DEFAULT; ATEN_CPU_CAPABILITY
/// caps it), the BLAS and the core it chose (OPENBLAS_CORETYPE forces it), oneDNN's ISA cap and
/// Fovea's own vector kernels.
struct CpuKernels {
  std::string aten_capability;  ///< as ATen reports it ("?" when it does not say)
  std::string blas;             ///< "OpenBLAS <config>", or "not OpenBLAS"
  std::string blas_core;        ///< OpenBLAS's core (e.g. "Haswell", "SkylakeX", "Zen"), "" otherwise
  /// The older core OpenBLAS had chosen itself when Fovea gave it blas_core instead
  /// (core/runtime/blas_core.h); "" when OpenBLAS's own choice or OPENBLAS_CORETYPE's runs.
  std::string blas_core_fallback;
  int blas_threads = 0;         ///< the threads of OpenBLAS's own pool (its products), 0 when not OpenBLAS
  std::string dnnl_max_isa;     ///< $DNNL_MAX_CPU_ISA, "" when unset
  bool native_bf16 = false;     ///< cpu_has_native_bf16()
  std::string vector_kernels;   ///< Fovea's own kernels: vector_lanes_name(vector_lanes())
};
CpuKernels cpu_kernels();

/// One line describing the runtime (LibTorch version, device, threads; on the CPU its kernels),
/// for logs and cards.
std::string describe_runtime(const torch::Device& device);

}  // namespace fovea
