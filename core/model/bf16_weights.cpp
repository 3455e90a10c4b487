#include "core/model/bf16_weights.h"

#include <map>
#include <mutex>
#include <tuple>

namespace fovea {

namespace {

/// Which form of which weight: the weight's TensorImpl, then 0 for the plain copy or 1 + transposed
/// for a laid-out matrix, then its rows.
using FormKey = std::tuple<const c10::TensorImpl*, int, std::int64_t>;

struct Form {
  c10::weak_intrusive_ptr<c10::TensorImpl> weight;  ///< tells a live weight from a new one at its address
  std::uint32_t version = 0;
  torch::Tensor plain;
  std::shared_ptr<const Bf16Matrix> matrix;
};

class Forms {
 public:
  static Forms& instance() {
    static Forms forms;
    return forms;
  }

  /// The form under `key` for this version of `weight`, made by `make` when missing or stale.
  /// Made under the lock: a part that asks while another makes it waits and takes it.
  template <typename Make>
  Form get(const torch::Tensor& weight, const FormKey& key, Make make) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto version = std::uint32_t(weight._version());
    auto found = forms_.find(key);
    if (found != forms_.end() && found->second.version == version && same_weight(found->second, weight)) {
      return found->second;
    }
    drop_gone();
    Form form{c10::weak_intrusive_ptr<c10::TensorImpl>(weight.getIntrusivePtr()), version, {}, {}};
    make(form);
    return forms_.insert_or_assign(key, std::move(form)).first->second;
  }

  std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    drop_gone();
    return forms_.size();
  }

 private:
  static bool same_weight(const Form& form, const torch::Tensor& weight) {
    const auto alive = form.weight.lock();
    return alive && alive.get() == weight.unsafeGetTensorImpl();
  }

  void drop_gone() {
    for (auto it = forms_.begin(); it != forms_.end();) it = it->second.weight.expired() ? forms_.erase(it) : std::next(it);
  }

  std::mutex mutex_;
  std::map<FormKey, Form> forms_;
};

void check_weight(const torch::Tensor& weight) {
  TORCH_CHECK(weight.dim() == 2 && weight.is_cpu() && weight.scalar_type() == torch::kFloat,
              "bf16 weight forms: a float CPU (V, E) weight, got ", weight.sizes(), " ", weight.scalar_type());
}

}  // namespace

torch::Tensor shared_bf16(const torch::Tensor& weight) {
  check_weight(weight);
  const auto form = Forms::instance().get(weight, {weight.unsafeGetTensorImpl(), 0, 0},
                                           [&](Form& f) { f.plain = to_bf16(weight.detach()).contiguous(); });
  return form.plain;
}

std::shared_ptr<const Bf16Matrix> shared_bf16_matrix(const torch::Tensor& weight, bool transposed, std::int64_t rows) {
  check_weight(weight);
  const auto form = Forms::instance().get(weight, {weight.unsafeGetTensorImpl(), 1 + int(transposed), rows}, [&](Form& f) {
    const auto w = weight.detach();
    f.matrix = std::make_shared<const Bf16Matrix>(transposed ? w.t() : w, rows);
  });
  return form.matrix;
}

std::size_t shared_bf16_forms() { return Forms::instance().size(); }

}  // namespace fovea
