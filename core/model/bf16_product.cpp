#include "core/model/bf16_product.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <utility>

#ifdef FOVEA_WITH_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace fovea {

namespace {

thread_local bool products_in_bf16 = false;

/// A 2-D bf16 operand oneDNN reads as it lies: rows or columns contiguous.
torch::Tensor operand(const torch::Tensor& t) {
  auto b = to_bf16(t);
  return b.stride(1) == 1 || b.stride(0) == 1 ? b : b.contiguous();
}

/// AMX multiplies bf16 in blocks of 32 along the depth K, and oneDNN 2.6 takes a slower path for a
/// K that is not a multiple of 32, an odd one slowest: the gradients whose depth is a batch's word
/// count (the vocabulary's, the gates') ran at 140–310 GFLOP/s on one core where the same
/// products with K rounded up to a multiple of 32 ran at 250–540. Such operands are rounded into
/// buffers with K rounded up and zeros after: the same product, the rounding's copy padding it.
/// Above kLongestPaddedDepth the tail is a small share of the work and the copy not worth making.
constexpr std::int64_t kShortestPaddedDepth = 64, kLongestPaddedDepth = 2048;

std::int64_t padded_depth(std::int64_t K) {
  if (K % kBf16DepthBlock == 0 || K < kShortestPaddedDepth || K > kLongestPaddedDepth) return K;
  return (K + kBf16DepthBlock - 1) / kBf16DepthBlock * kBf16DepthBlock;
}

/// t (2-D, float or bf16) rounded to bf16 with its dimension `depth` (0 or 1) grown to `padded`
/// and zero past the end, in t's own order (rows or columns contiguous) so that the copy streams.
torch::Tensor padded_operand(const torch::Tensor& t, int depth, std::int64_t padded) {
  const auto options = t.options().dtype(torch::kBFloat16);
  const bool columns = t.stride(0) == 1 && t.stride(1) != 1;
  const std::int64_t rows = depth == 0 ? padded : t.size(0), cols = depth == 1 ? padded : t.size(1);
  auto out = columns ? torch::empty({cols, rows}, options).t() : torch::empty({rows, cols}, options);
  const auto K = t.size(depth);
  out.narrow(depth, 0, K).copy_(t);
  out.narrow(depth, K, padded - K).zero_();
  return out;
}

void check_operands(const torch::Tensor& a, std::int64_t K) {
  TORCH_CHECK(a.dim() == 2 && a.size(1) == K && a.is_cpu(), "bf16 product: CPU a (M, ", K, "), got ", a.sizes());
}

}  // namespace

#ifdef FOVEA_WITH_DNNL

/// B's layout when oneDNN's kernels want their own, and a number that tells layouts apart.
struct Bf16Matrix::Layout {
  dnnl::memory::desc desc;
  std::int64_t id = 0;
};

namespace {

/// What a primitive is made for: M, K, N, a's strides, then b's strides, or for B in a layout of
/// the kernels' own (0, 0, its id).
using ProductShape = std::array<std::int64_t, 8>;

struct Product {
  std::optional<dnnl::matmul> primitive;  ///< none where oneDNN has no kernel for the operands
  std::size_t scratch_bytes = 0;
};

/// One process-wide lock around making primitives: oneDNN 2.6 builds its kernels unsafely from two
/// threads at once (a training run died in brgemm_kernel_create with LibTorch's bf16 products).
std::mutex& creation() {
  static std::mutex m;
  return m;
}

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

/// a (bf16), b (bf16) and the float result c, as laid out in memory.
struct Operands {
  dnnl::memory::desc a, b, c;
};

Operands operands(const ProductShape& s, const Bf16Matrix::Layout* layout) {
  using dt = dnnl::memory::data_type;
  return {{{s[0], s[1]}, dt::bf16, dnnl::memory::dims{s[3], s[4]}},
          layout ? layout->desc : dnnl::memory::desc({s[1], s[2]}, dt::bf16, dnnl::memory::dims{s[5], s[6]}),
          {{s[0], s[2]}, dt::f32, dnnl::memory::dims{s[2], 1}}};
}

dnnl::matmul::primitive_desc describe(const Operands& o) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(o.a, o.b, o.c), attr, cpu_engine());
}

/// This thread's stream, primitives and scratch memory. Primitives are made under creation()'s
/// lock and then run on their thread only, each run with this thread's scratch memory: the parts
/// of a training step multiply side by side without sharing anything of oneDNN's.
class ThreadProducts {
 public:
  static ThreadProducts& instance() {
    thread_local ThreadProducts products;
    return products;
  }

  /// c = a · b; `layout` says how b lies when in a layout of the kernels' own. False, and c
  /// untouched, where oneDNN has no kernel for these operands.
  bool run(const ProductShape& s, const Bf16Matrix::Layout* layout, const torch::Tensor& a, void* b,
           torch::Tensor& c) {
    const auto& p = product(s, layout);
    if (!p.primitive) return false;
    if (scratch_.size() < p.scratch_bytes) scratch_.resize(p.scratch_bytes);
    const auto o = operands(s, layout);
    auto& engine = cpu_engine();
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, dnnl::memory(o.a, engine, a.data_ptr())},
                                               {DNNL_ARG_WEIGHTS, dnnl::memory(o.b, engine, b)},
                                               {DNNL_ARG_DST, dnnl::memory(o.c, engine, c.data_ptr())}};
    if (p.scratch_bytes > 0) {
      const dnnl::memory::desc scratch({std::int64_t(p.scratch_bytes)}, dnnl::memory::data_type::u8, dnnl::memory::dims{1});
      args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratch, engine, scratch_.data()));
    }
    p.primitive->execute(stream_, args);
    stream_.wait();
    return true;
  }

 private:
  static constexpr std::size_t kMaxProducts = 512;  // shapes are few; a bound all the same

  const Product& product(const ProductShape& shape, const Bf16Matrix::Layout* layout) {
    const Key key{at::get_num_threads(), shape};
    auto found = products_.find(key);
    if (found != products_.end()) return found->second;
    if (products_.size() >= kMaxProducts) products_.clear();
    std::lock_guard<std::mutex> one_at_a_time(creation());
    Product p;
    try {
      const auto pd = describe(operands(shape, layout));
      p = {dnnl::matmul(pd), pd.scratchpad_desc().get_size()};
    } catch (const dnnl::error&) {  // a CPU without bf16 kernels (or oneDNN capped below them)
    }
    return products_.emplace(key, std::move(p)).first->second;
  }

  dnnl::stream stream_{cpu_engine()};
  /// oneDNN fixes a primitive's thread count when it makes it, from the calling thread's intra-op
  /// thread count then: a thread whose count changes (a batch's parts run the caller on one
  /// thread; its weight gradients then take all of them) keeps a primitive for each.
  using Key = std::pair<int, ProductShape>;
  std::map<Key, Product> products_;
  std::vector<std::uint8_t> scratch_;
};

/// The layout oneDNN's kernels choose for B (K, N) in products with `rows` rows, with B's bf16
/// copy reordered into it; null where that layout is the plain one or oneDNN offers none.
std::shared_ptr<const Bf16Matrix::Layout> kernel_layout(const torch::Tensor& plain, std::int64_t rows,
                                                        torch::Tensor& laid_out) {
  using dt = dnnl::memory::data_type;
  const std::int64_t K = plain.size(0), N = plain.size(1);
  const dnnl::memory::desc given({K, N}, dt::bf16, dnnl::memory::dims{plain.stride(0), plain.stride(1)});
  std::lock_guard<std::mutex> one_at_a_time(creation());
  const dnnl::memory::desc a({rows, K}, dt::bf16, dnnl::memory::format_tag::ab);
  const dnnl::memory::desc any({K, N}, dt::bf16, dnnl::memory::format_tag::any);
  const dnnl::memory::desc c({rows, N}, dt::f32, dnnl::memory::format_tag::ab);
  dnnl::memory::desc chosen;
  try {
    chosen = describe({a, any, c}).weights_desc();
  } catch (const dnnl::error&) {  // no bf16 kernels: products go through torch::mm
    return nullptr;
  }
  if (chosen == given) return nullptr;
  auto layout = std::make_shared<Bf16Matrix::Layout>();
  layout->desc = chosen;
  std::uint64_t id = 1469598103934665603ull;  // FNV-1a over the descriptor's bytes
  const auto* bytes = reinterpret_cast<const unsigned char*>(&chosen.data);
  for (std::size_t i = 0; i < sizeof(chosen.data); ++i) id = (id ^ bytes[i]) * 1099511628211ull;
  layout->id = std::int64_t(id >> 1);
  laid_out = torch::empty({std::int64_t(chosen.get_size())}, plain.options().dtype(torch::kByte));
  auto& engine = cpu_engine();
  dnnl::memory from(given, engine, plain.data_ptr()), to(chosen, engine, laid_out.data_ptr());
  dnnl::stream stream(engine);
  dnnl::reorder(from, to).execute(stream, from, to);
  stream.wait();
  return layout;
}

}  // namespace

#else  // without oneDNN's headers

struct Bf16Matrix::Layout {};

#endif  // FOVEA_WITH_DNNL

Bf16Products::Bf16Products(bool enabled) : was_(products_in_bf16) { products_in_bf16 = was_ || enabled; }

Bf16Products::~Bf16Products() { products_in_bf16 = was_; }

bool Bf16Products::active() { return products_in_bf16; }

torch::Tensor to_bf16(const torch::Tensor& t) {
  return t.scalar_type() == torch::kBFloat16 ? t : t.to(torch::kBFloat16);
}

torch::Tensor bf16_matrix_product(const torch::Tensor& a, const torch::Tensor& b) {
  RECORD_FUNCTION("fovea::bf16_matrix_product", std::vector<c10::IValue>());
  TORCH_CHECK(b.dim() == 2 && b.is_cpu(), "bf16_matrix_product: CPU b (K, N), got ", b.sizes());
  check_operands(a, b.size(0));
  const std::int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  const auto float_options = a.options().dtype(torch::kFloat);
  if (M == 0 || N == 0 || K == 0) return torch::zeros({M, N}, float_options);
  const auto depth = padded_depth(K);
  const auto x = depth == K ? operand(a) : padded_operand(a, 1, depth);
  const auto y = depth == K ? operand(b) : padded_operand(b, 0, depth);
#ifdef FOVEA_WITH_DNNL
  auto c = torch::empty({M, N}, float_options);
  const ProductShape shape{M, depth, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), 0};
  if (ThreadProducts::instance().run(shape, nullptr, x, y.data_ptr(), c)) return c;
  return torch::mm(x.to(torch::kFloat), y.to(torch::kFloat));
#else
  return torch::mm(x.to(torch::kFloat), y.to(torch::kFloat));
#endif
}

Bf16Matrix::Bf16Matrix(const torch::Tensor& b, std::int64_t rows) {
  TORCH_CHECK(b.dim() == 2 && b.is_cpu(), "Bf16Matrix: CPU B (K, N), got ", b.sizes());
  plain_ = operand(b.detach());
#ifdef FOVEA_WITH_DNNL
  if (plain_.numel() > 0) layout_ = kernel_layout(plain_, rows, laid_out_);
#else
  (void)rows;
#endif
}

torch::Tensor Bf16Matrix::multiply(const torch::Tensor& a) const {
  RECORD_FUNCTION("fovea::Bf16Matrix::multiply", std::vector<c10::IValue>());
  if (!layout_) return bf16_matrix_product(a, plain_);
  check_operands(a, plain_.size(0));
  const std::int64_t M = a.size(0), K = plain_.size(0), N = plain_.size(1);
  if (M == 0) return torch::zeros({M, N}, a.options().dtype(torch::kFloat));
  const auto x = operand(a);
#ifdef FOVEA_WITH_DNNL
  auto c = torch::empty({M, N}, a.options().dtype(torch::kFloat));
  const bool ran = ThreadProducts::instance().run({M, K, N, x.stride(0), x.stride(1), 0, 0, layout_->id},
                                                  layout_.get(), x, laid_out_.data_ptr(), c);
  return ran ? c : bf16_matrix_product(x, plain_);
#else
  return bf16_matrix_product(x, plain_);
#endif
}

std::string bf16_product_kernel(std::int64_t M, std::int64_t K, std::int64_t N) {
#ifdef FOVEA_WITH_DNNL
  const auto* v = dnnl_version();
  std::ostringstream s;
  s << "oneDNN " << v->major << "." << v->minor << "." << v->patch << ", ";
  try {
    std::lock_guard<std::mutex> one_at_a_time(creation());
    s << describe(operands({M, K, N, K, 1, 1, K, 0}, nullptr)).impl_info_str();
  } catch (const dnnl::error& e) {
    s << "no bf16 product (" << e.what() << ")";
  }
  return s.str();
#else
  (void)M, (void)K, (void)N;
  return "float products of bf16-rounded operands (built without oneDNN's headers)";
#endif
}

}  // namespace fovea
