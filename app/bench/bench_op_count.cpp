// fovea bench --case op_count: how many operators that launch a kernel the device-generic path
// (what CUDA runs) issues per word, in a training step and in beam search. Counted on any machine:
// on the CPU the decoder runs in float64, which none of the CPU float kernels take, so every
// operator is the one a GPU would launch, except the LSTM cell, which CUDA runs as one fused
// operator each way (core/model/fused_lstm_cell.h): the count with the cell fused is reported
// beside. With --device cuda it is counted on the GPU itself, in float32. RecordFunction's
// callbacks see each operator.
#include <ATen/record_function.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "app/bench/bench_cases.h"
#include "core/data/batching.h"
#include "core/decode/decoding.h"
#include "core/model/fused_lstm_cell.h"
#include "core/model/show_attend_tell.h"
#include "core/train/decoder_pass.h"

namespace fovea::cli {

namespace {

/// Operators that only describe a tensor anew (a view, a shape): no kernel runs unless one they
/// call does.
bool is_metadata(const std::string& name) {
  static const char* const views[] = {
      "aten::view", "aten::narrow", "aten::slice", "aten::select", "aten::transpose", "aten::t", "aten::expand",
      "aten::unsqueeze", "aten::squeeze", "aten::as_strided", "aten::reshape", "aten::_reshape_alias", "aten::permute",
      "aten::alias", "aten::detach", "aten::empty", "aten::empty_strided", "aten::split_with_sizes", "aten::split",
      "aten::unbind", "aten::resize_", "aten::to", "aten::contiguous", "aten::flatten", "aten::expand_as",
      "aten::view_as", "aten::chunk", "aten::lift_fresh", "aten::result_type", "aten::size", "aten::is_nonzero",
      "aten::item", "aten::_local_scalar_dense", "aten::set_", "aten::requires_grad_", "aten::detach_",
      "aten::empty_like", "aten::new_empty", "aten::new_empty_strided"};
  for (const char* v : views) {
    if (name == v) return true;
  }
  return false;
}

/// Counts the outermost ATen operators (those no other ATen operator called; Fovea's own scopes
/// and the autograd engine's node records are looked through) that launch a kernel: not
/// metadata, or metadata that called one that is (a `to` that copies, a `reshape` of a strided
/// tensor).
struct OpCounter {
  static inline std::atomic<std::int64_t> launched{0};
  static inline std::mutex mutex;
  static inline std::map<std::string, std::int64_t> by_name;
  static inline std::atomic<std::int64_t> in_cell{0}, cells{0};  ///< ops inside the generic cell, and its calls
  struct Frame {
    std::string name;
    bool aten = false, launches = false, cell = false;
  };
  static inline thread_local std::vector<Frame> stack;

  static std::unique_ptr<at::ObserverContext> start(const at::RecordFunction& fn) {
    const std::string name = fn.name();
    const bool aten = name.rfind("aten::", 0) == 0;
    const bool cell = name == kGenericCellScope;
    if (cell) ++cells;
    stack.push_back({name, aten, aten && !is_metadata(name), cell});
    return nullptr;
  }
  static void end(const at::RecordFunction& fn, at::ObserverContext*) {
    if (stack.empty()) return;
    const Frame f = stack.back();
    stack.pop_back();
    if (!f.aten) return;
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      if (it->aten) {  // called by another ATen operator: its launch is that one's
        it->launches = it->launches || f.launches;
        return;
      }
    }
    if (!f.launches) return;
    ++launched;
    for (const auto& outer : stack) {
      if (outer.cell) ++in_cell;
    }
    std::lock_guard<std::mutex> lock(mutex);
    ++by_name[f.name];
  }
  static void reset() {
    launched = 0;
    in_cell = 0;
    cells = 0;
    by_name.clear();
  }
};

/// Runs fn with the counter on; returns the operators counted, the most frequent named.
nlohmann::json count_ops(const std::function<void()>& fn, double words) {
  OpCounter::reset();
  auto handle = at::addGlobalCallback(at::RecordFunctionCallback(&OpCounter::start, &OpCounter::end)
                                          .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                                                   at::RecordScope::USER_SCOPE}));
  fn();
  at::removeCallback(handle);
  std::vector<std::pair<std::int64_t, std::string>> top;
  for (const auto& [name, n] : OpCounter::by_name) top.emplace_back(n, name);
  std::sort(top.rbegin(), top.rend());
  nlohmann::json most = nlohmann::json::object();
  for (std::size_t i = 0; i < top.size() && i < 12; ++i) most[top[i].second] = top[i].first;
  const auto total = OpCounter::launched.load();
  // The generic cell's operators replaced by the one fused operator per call that CUDA runs.
  const auto fused = total - OpCounter::in_cell.load() + OpCounter::cells.load();
  return {{"ops", total},
          {"words", words},
          {"ops_per_word", double(total) / words},
          {"ops_per_word_cell_fused", double(fused) / words},
          {"most_frequent", most}};
}

}  // namespace

void bench_op_count(const std::string& device_name) {
  const torch::Device device(device_name);
  // float64 on the CPU keeps every CPU float kernel out; a GPU runs its own path in float32.
  const auto dtype = device.is_cpu() ? torch::kDouble : torch::kFloat;
  ModelConfig cfg;
  cfg.annotation_dim = 32;
  cfg.grid_h = cfg.grid_w = 4;
  cfg.embed_dim = cfg.attention_dim = cfg.hidden_dim = 32;
  cfg.vocab_size = 100;
  cfg.encoder_widths = {8, 16, 32};
  cfg.encoder_strides = {2, 2, 2};
  cfg.image_size = 32;
  cfg.init_state = InitState::Mean;
  torch::manual_seed(1);
  // Tensors made without a type (zeros, tensor(...)) take the counted type too, then float32 again.
  struct DefaultType {
    caffe2::TypeMeta before = torch::get_default_dtype();
    explicit DefaultType(torch::ScalarType t) { torch::set_default_dtype(c10::scalarTypeToTypeMeta(t)); }
    ~DefaultType() { torch::set_default_dtype(before); }
  } default_type(dtype);
  ShowAttendTell net(cfg);
  net->to(device, dtype);
  // Training: one decoder pass (forward, objective, backward) over 8 captions of 12 words.
  const std::int64_t B = 8, words = 12;
  std::vector<std::vector<std::int64_t>> caps;
  std::mt19937 rng(3);
  for (std::int64_t i = 0; i < B; ++i) {
    std::vector<std::int64_t> c = {Vocabulary::kStart};
    for (std::int64_t w = 0; w < words - i % 3; ++w) c.push_back(4 + std::int64_t(rng() % 96));
    c.push_back(Vocabulary::kEnd);
    caps.push_back(c);
  }
  DecoderPassInput input;
  input.annotations = torch::rand({B, cfg.grid_h * cfg.grid_w, cfg.annotation_dim}, torch::TensorOptions(dtype).device(device));
  std::tie(input.tokens, input.lengths) = pad_captions(caps);
  DecoderPassOptions options;
  options.parts = 1;
  net->decoder->train();
  const double steps = double(words + 1);  // the longest caption's words and <end>: the decoder's steps
  // As a training step does (core/train/fused_adam.h): gradients dropped, not zeroed, so that
  // backward hands each weight its gradient instead of adding to the last one.
  const auto pass = [&] {
    for (auto& p : net->parameters()) p.mutable_grad() = torch::Tensor();
    (void)decoder_pass(net->decoder, input, options);
  };
  pass();  // warm-up
  auto training = count_ops(pass, steps);
  // The same step through autograd, step by step: what the recurrence replaces.
  net->decoder->set_recurrence_path(DecoderImpl::RecurrencePath::StepByStep);
  auto step_by_step = count_ops(pass, steps);
  net->decoder->set_recurrence_path(DecoderImpl::RecurrencePath::Auto);
  // Beam search: k = 5 over exactly 20 steps.
  net->eval();
  DecodeOptions d;
  d.beam = 5;
  d.max_len = 20;
  d.allow_end = false;
  const auto one = input.annotations.narrow(0, 0, 1);
  torch::NoGradGuard no_grad;
  auto beam = count_ops([&] { (void)beam_search(*net, one, d); }, 20);
  std::cout << nlohmann::json({{"case", "op_count"},
                               {"device", device.str()},
                               {"config", {{"path", device.is_cpu() ? "device-generic (float64 on the CPU: no CPU float kernel applies)"
                                                                    : "device-generic (float32 on the GPU)"},
                                           {"counted", "outermost operators that launch a kernel (views and shapes not)"},
                                           {"training", "decoder forward + objective + backward, 8 captions, per decoder step"},
                                           {"beam_search", "beam 5, 20 steps, per step"}}},
                               {"training_step", training},
                               {"training_step_autograd_step_by_step", step_by_step},
                               {"beam_search", beam}})
                   .dump()
            << std::endl;
}

}  // namespace fovea::cli
