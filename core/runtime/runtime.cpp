#include "core/runtime/runtime.h"

#include "core/runtime/blas_core.h"
#include "core/runtime/vector_lanes.h"

#include <ATen/Version.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

// Weak: resolved when the BLAS behind LibTorch is OpenBLAS, null otherwise (MKL, reference BLAS).
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" char* openblas_get_config() __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));

namespace fovea {

torch::Device resolve_device(const std::string& name) {
  if (name == "auto") return compat::cuda_available() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
  if (name == "cpu") return torch::kCPU;
  if (name.rfind("cuda", 0) == 0) {
    if (!compat::cuda_available()) {
      throw std::runtime_error("device '" + name + "' asked for, but this LibTorch build sees no CUDA GPU (use --device cpu or auto)");
    }
    return torch::Device(name);
  }
  throw std::invalid_argument("device must be auto, cpu or cuda[:N], got '" + name + "'");
}

void configure_allocator() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);  // glibc's maximum: tensors up to 32 MiB come from the heap
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);  // and freed memory stays there for the next step
  // Threads other than the main one allocate from heaps of their own (64 MiB each), and glibc
  // unmaps such a heap as soon as it is empty, whatever the trim threshold: the decoder's parts
  // (core/train/decoder_pass.h) then faulted ~120 MB of fresh pages in at every step (30k page faults,
  // expensive in these VMs). A top pad as large as a heap keeps the heaps mapped.
  mallopt(M_TOP_PAD, 64 * 1024 * 1024);
  // Blocks over the largest threshold (the encoder's activations, 51 MB for a batch of 64 at
  // 112 px) were still mapped afresh at every step and the kernel zeroed their pages again (5% of
  // a recipe step): serve them from the heap too. Where a worker thread's heap cannot hold one
  // (over 64 MiB), glibc still maps it.
  mallopt(M_MMAP_MAX, 0);
#endif
}

void configure_threads(int threads) {
  configure_allocator();
  if (threads <= 0) {  // OMP_NUM_THREADS when the environment sets it, else one per core
    const char* omp = std::getenv("OMP_NUM_THREADS");
    threads = omp != nullptr ? std::atoi(omp) : 0;
  }
  set_operator_threads(threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency())));
}

void set_operator_threads(int n) {
  torch::set_num_threads(n);
  // LibTorch's thread setting does not reach OpenBLAS's own pool (one thread per core by
  // default), so one operator thread still ran every matmul on both cores. Set it too when the BLAS
  // LibTorch was linked against is OpenBLAS.
  set_blas_threads(n);
}

void set_blas_threads(int n) {
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(n);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    auto name = line.substr(line.find(':') + 1);
    name.erase(0, name.find_first_not_of(' '));
    return name;
  }
  return {};
}

std::vector<std::string> cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::vector<std::string> flags;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string flag; words >> flag;) flags.push_back(flag);
    break;  // the first CPU's flags speak for all
  }
  return flags;
}

namespace {

/// DNNL_MAX_CPU_ISA in capitals ("AVX2", "AVX512_CORE_BF16", ...), or "ALL" where it is not set.
std::string onednn_isa_cap() {
  const char* isa = std::getenv("DNNL_MAX_CPU_ISA");
  std::string cap = isa != nullptr && *isa != '\0' ? isa : "ALL";
  std::transform(cap.begin(), cap.end(), cap.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return cap;
}

/// Whether /proc/cpuinfo lists `flag` for this CPU.
bool cpu_has_flag(const std::string& flag) {
  const auto flags = cpu_flags();
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

}  // namespace

bool cpu_has_native_bf16() {
  // oneDNN capped below its bf16 kernels (e.g. DNNL_MAX_CPU_ISA=AVX2 to reproduce an AVX2-only
  // machine) emulates bf16 products: slower than fp32, as on a CPU without them.
  const auto cap = onednn_isa_cap();
  if (cap != "ALL" && cap.find("BF16") == std::string::npos && cap.find("AMX") == std::string::npos) return false;
  return cpu_has_flag("avx512_bf16") || cpu_has_flag("amx_bf16");
}

bool cpu_multiplies_bf16_with_amx() {
  const auto cap = onednn_isa_cap();
  if (cap != "ALL" && cap.find("AMX") == std::string::npos) return false;
  return cpu_has_flag("amx_bf16");
}

std::string resolve_precision(const std::string& precision, const torch::Device& device) {
  if (precision == "auto") return "fp32";
  if (precision == "bf16" && !device.is_cpu()) {
    throw std::invalid_argument("precision bf16 is CPU autocast; on " + device.str() + " train with fp32 (or auto)");
  }
  // Emulated bf16 is slower than fp32, and oneDNN then refuses the encoder's bf16 convolutions
  // with words of its own ("could not create a primitive descriptor iterator").
  if (precision == "bf16" && !cpu_has_native_bf16()) {
    throw std::invalid_argument(
        "precision bf16 needs a CPU with bf16 products (AVX-512 BF16 or AMX, and DNNL_MAX_CPU_ISA not capping "
        "oneDNN below them); this one has none: train with fp32 (or auto)");
  }
  return precision;
}

CpuKernels cpu_kernels() {
  CpuKernels k;
  // ATen says which capability it dispatches to only in its build summary.
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  const auto at = config.find(key);
  k.aten_capability = at == std::string::npos ? "?" : config.substr(at + key.size(), config.find('\n', at) - at - key.size());
  if (openblas_get_config != nullptr) {
    k.blas = std::string("OpenBLAS ") + openblas_get_config();
    k.blas_core = openblas_core_name();
    if (openblas_get_num_threads != nullptr) k.blas_threads = openblas_get_num_threads();
    if (const char* fell_back = std::getenv(kOpenblasFallbackVariable)) k.blas_core_fallback = fell_back;
  } else {
    k.blas = "not OpenBLAS";
  }
  if (const char* isa = std::getenv("DNNL_MAX_CPU_ISA")) k.dnnl_max_isa = isa;
  k.native_bf16 = cpu_has_native_bf16();
  k.vector_kernels = vector_lanes_name(vector_lanes());
  return k;
}

std::string describe_runtime(const torch::Device& device) {
  std::string s = "LibTorch " + compat::torch_version() + ", device " + device.str() + ", " +
                  std::to_string(torch::get_num_threads()) + " thread(s)";
  if (device.is_cpu()) {
    const auto k = cpu_kernels();
    if (const auto cpu = cpu_model_name(); !cpu.empty()) s += ", " + cpu;
    s += ", ATen " + k.aten_capability + (k.blas_core.empty() ? ", " + k.blas : ", OpenBLAS core " + k.blas_core);
    if (!k.blas_core_fallback.empty()) s += " (not its own " + k.blas_core_fallback + ", older than this CPU)";
    if (!k.dnnl_max_isa.empty()) s += ", oneDNN up to " + k.dnnl_max_isa;
    s += ", Fovea's kernels " + k.vector_kernels;
  }
  return s;
}

}  // namespace fovea
