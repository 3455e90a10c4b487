// fovea bench's cases: one function each, printing one JSON object (configuration, threads,
// median/min/max seconds over repeated runs after warm-up) per case.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <unistd.h>

#include "app/bench/bench_cases.h"
#include "app/bench/bench_live.h"

#include <torch/csrc/autograd/profiler_legacy.h>
#include "core/data/batching.h"
#include "core/data/image_io.h"
#include "core/datasets/fashion_scenes.h"
#include "core/decode/captioner.h"
#include "core/decode/decoding.h"
#include "core/model/bf16_product.h"
#include "core/model/packed_matrix.h"
#include "core/model/show_attend_tell.h"
#include "core/render/figure.h"
#include "core/render/heatmap.h"
#include "core/runtime/data_paths.h"
#include "core/runtime/process_startup.h"
#include "core/runtime/runtime.h"
#include "core/train/decoder_pass.h"
#include "core/train/fused_adam.h"
#include "core/train/objectives.h"
#include "core/train/trainer.h"

namespace fovea::cli {

void profile_once(const std::string& prefix, const std::string& name, const std::function<void()>& fn) {
  if (prefix.empty()) return;
  std::ofstream trace(prefix + "." + name + ".json");
  torch::autograd::profiler::RecordProfile guard(trace);
  fn();
}

namespace {

using Clock = std::chrono::steady_clock;


struct Timing {
  double median = 0, min = 0, max = 0;
  int runs = 0;
};

Timing time_it(const std::function<void()>& fn, int warmup, int repeat, const torch::Device& device) {
  auto sync = [&] {
    if (device.is_cuda()) torch::cuda::synchronize();
  };
  // At least `warmup` runs and half a second: after idling, these VMs' cores run the first ~0.2 s
  // of work at half speed (a 1024^3 sgemm: 22 ms for its first 8 calls, then 10-11 ms), so a
  // count of short runs alone timed the slow start (docs/performance.md).
  constexpr double kMinWarmupSeconds = 0.5;
  const auto warm_start = Clock::now();
  for (int i = 0; i < warmup || (warmup > 0 && std::chrono::duration<double>(Clock::now() - warm_start).count() <
                                                    kMinWarmupSeconds);
       ++i) {
    fn();
    sync();
  }
  std::vector<double> s;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = Clock::now();
    fn();
    sync();
    s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  return {s[s.size() / 2], s.front(), s.back(), repeat};
}

/// The reference decoder configuration: B=32, 14x14 grid, D=512, m=A=n=512, vocabulary 10000.
ModelConfig reference_config(AttentionKind kind) {
  ModelConfig c;
  c.attention = kind;
  c.annotation_dim = 512;
  c.encoder_widths = {16, 32, 64, 128, 512};  // the decoder cases feed random annotations; only D matters
  c.encoder_strides = {2, 2, 2, 1, 1};
  c.attention_dim = 512;
  c.embed_dim = 512;
  c.hidden_dim = 512;
  c.vocab_size = 10000;
  c.grid_h = c.grid_w = 14;
  c.max_caption_len = 24;
  c.dropout = 0.5;
  c.init_state = InitState::Mean;
  return c;
}

/// Multiply-adds of one teacher-forced decoder forward over `tokens` steps of `images` images.
double decoder_forward_flops(const ModelConfig& c, double tokens, double images) {
  const double L = c.grid_h * c.grid_w, D = c.annotation_dim, A = c.attention_dim, m = c.embed_dim,
               n = c.hidden_dim, K = c.vocab_size;
  const double per_token = n * A + L * A + L * D + n + (m + D + n) * 4 * n + n * m + D * m + m * K;
  const double per_image = L * D * A + 2 * D * n;  // W_a a once, and the f_init MLPs
  return 2 * (tokens * per_token + images * per_image);
}

nlohmann::json report(const std::string& name, const Timing& t, nlohmann::json config, int threads, const torch::Device& d) {
  return {{"case", name},       {"config", std::move(config)}, {"threads", threads}, {"device", d.str()},
          {"median_s", t.median}, {"min_s", t.min},            {"max_s", t.max},      {"runs", t.runs}};
}

/// ui_latency lives in fovea-ui-bench (Qt stays out of this binary): run it from beside this one.
void run_ui_latency(int threads, double seconds) {
  const auto exe = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "fovea-ui-bench";
  if (!std::filesystem::exists(exe)) {
    std::cout << nlohmann::json({{"case", "ui_latency"}, {"skipped", exe.string() + " not built (needs Qt 6)"}}).dump() << std::endl;
    return;
  }
  const auto command = "'" + exe.string() + "' --threads " + std::to_string(std::max(1, threads)) + " --seconds " +
                       std::to_string(seconds) + " 2>/dev/null";
  std::cout << std::flush;
  if (std::system(command.c_str()) != 0) {
    std::cout << nlohmann::json({{"case", "ui_latency"}, {"error", exe.string() + " failed"}}).dump() << std::endl;
  }
}

/// sgemm: a 1024^3 float matrix product, the machine's matmul rate; returns GFLOP/s. At least 50
/// timed runs (about a second on a core): its median is the denominator of every fraction_of_sgemm,
/// and with 5 or 10 runs of 10-20 ms, one slow moment on a shared host moved it by a quarter.
double bench_sgemm(const BenchArgs* a, const torch::Device& device) {
  const int N = 1024;
  const bool bf16 = a->precision == "bf16" && device.is_cpu();
  auto x = torch::randn({N, N}, torch::TensorOptions().device(device)), y = torch::randn({N, N}, x.options());
  // bf16: the product the decoder's training step uses (core/model/bf16_product.h), operands
  // already in bf16 as the step's weights are.
  const auto xb = bf16 ? to_bf16(x) : x, yb = bf16 ? to_bf16(y) : y;
  auto t = time_it([&] { (void)(bf16 ? bf16_matrix_product(xb, yb) : torch::mm(x, y)); }, a->warmup,
                   std::max(a->repeat, 50), device);
  const double sgemm_gflops = 2.0 * N * N * N / t.median / 1e9;
  auto j = report("sgemm", t, {{"n", N}, {"precision", bf16 ? "bf16" : "fp32"}}, a->threads, device);
  j["gflops"] = sgemm_gflops;
  if (bf16) j["kernel"] = bf16_product_kernel(N, N, N);
  if (device.is_cpu()) {
    // A decoder step's product: a part's 16 captions by an LSTM gate weight, the weight prepared once.
    const std::int64_t rows = 16, K = 512, M = 2048;
    const auto h = torch::randn({rows, K}), w = torch::randn({M, K});
    const PackedMatrix packed(w, /*transposed=*/true);
    const Bf16Matrix rounded(w.t(), rows);
    auto s = time_it([&] { (void)(bf16 ? rounded.multiply(h) : packed.multiply(h)); }, a->warmup,
                     std::max(a->repeat, 200), device);
    j["step_product"] = {{"shape", "16x512 by 512x2048"}, {"median_s", s.median},
                         {"gflops", 2.0 * double(rows * K * M) / s.median / 1e9}};
  }
  std::cout << j.dump() << std::endl;
  return sgemm_gflops;
}

/// decoder_train_step(_hard): the reference decoder's forward, objective, backward and Adam step.
void bench_decoder_train_step(const BenchArgs* a, const torch::Device& device, AttentionKind kind, double sgemm_gflops) {
  const std::string name = kind == AttentionKind::Soft ? "decoder_train_step" : "decoder_train_step_hard";
  const auto cfg = reference_config(kind);
  Decoder dec(cfg);
  dec->to(device);
  dec->train();
  FusedAdam opt(dec->parameters(), torch::optim::AdamOptions(1e-4));
  const int B = 32;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> len(8, 22);
  std::vector<std::vector<std::int64_t>> caps;
  double tokens = 0;
  std::vector<int> words;  // reported, so that another program can decode the same captions
  for (int i = 0; i < B; ++i) {
    std::vector<std::int64_t> c = {Vocabulary::kStart};
    const int n = len(rng);
    words.push_back(n);
    for (int k = 0; k < n; ++k) c.push_back(4 + std::int64_t(rng() % (cfg.vocab_size - 4)));
    c.push_back(Vocabulary::kEnd);
    tokens += n + 1;
    caps.push_back(c);
  }
  auto [tok, lengths] = pad_captions(caps);
  tok = tok.to(device), lengths = lengths.to(device);
  auto annotations = torch::randn({B, 196, 512}, torch::TensorOptions().device(device));
  ObjectiveOptions oo;
  MovingBaseline baseline;
  std::vector<double> pass_s, optimizer_s;  // where a step's time goes
  auto seconds_since = [&](std::chrono::steady_clock::time_point& t0) {
    if (device.is_cuda()) torch::cuda::synchronize();
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - t0).count();
    t0 = now;
    return s;
  };
  double first_objective = std::nan("");  // of the first (warm-up) step: compares precisions on the same data
  DecoderPassOptions pass_options;  // what `fovea train` runs: core/train/decoder_pass.h
  pass_options.objective = oo;
  pass_options.hard = kind == AttentionKind::Hard;
  pass_options.bf16 = a->precision == "bf16";
  pass_options.parts = a->parts;
  pass_options.word_gradient_rows = true;  // as `fovea train` runs: FusedAdam takes them
  int parts = 1;
  auto step = [&] {
    auto t0 = std::chrono::steady_clock::now();
    torch::Tensor sample;
    if (kind == AttentionKind::Hard) sample = torch::bernoulli(torch::full({B}, 0.5)).to(torch::kBool).to(device);
    clear_gradients(opt);
    DecoderPassInput input;
    input.annotations = annotations, input.tokens = tok, input.lengths = lengths, input.sample = sample;
    const auto pass = decoder_pass(dec, input, pass_options, &baseline);
    parts = pass.parts;
    if (std::isnan(first_objective)) first_objective = pass.terms.objective;
    if (kind == AttentionKind::Hard && pass.terms.sampled > 0) baseline.update(pass.terms.reward);
    pass_s.push_back(seconds_since(t0));
    opt.step();
    optimizer_s.push_back(seconds_since(t0));
  };
  auto t = time_it(step, a->warmup, a->repeat, device);
  profile_once(a->profile, name, step);
  const double flops = 3 * decoder_forward_flops(cfg, tokens, B);  // forward + backward ~ 3x forward
  auto j = report(name, t,
                  {{"batch", B}, {"grid", "14x14"}, {"D", 512}, {"embed", 512}, {"attention", 512}, {"hidden", 512},
                   {"vocab", 10000}, {"caption_len", "8..22 uniform, seed 7"}, {"caption_lengths", words}, {"tokens", tokens},
                   {"penalty", "doubly stochastic, mean over cells"}, {"precision", a->precision}, {"parts", parts}},
                  a->threads, device);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  j["phases_s"] = {{"forward_objective_backward", median(pass_s)}, {"adam", median(optimizer_s)}};
  j["first_step_objective"] = first_objective;
  j["gflop_per_step"] = flops / 1e9;
  j["gflops"] = flops / t.median / 1e9;
  if (sgemm_gflops > 0) j["fraction_of_sgemm"] = j["gflops"].get<double>() / sgemm_gflops;
  std::cout << j.dump() << std::endl;
}

/// beam_search (k=5) and greedy_batch (32 images), 20 steps each at the reference sizes.
void bench_decoding(const BenchArgs* a, const torch::Device& device, const std::function<bool(const std::string&)>& wanted) {
  auto cfg = reference_config(AttentionKind::Soft);
  ShowAttendTell net(cfg);
  net->to(device);
  net->eval();
  DecodeOptions o;
  o.max_len = 20;
  o.allow_end = false;  // exactly 20 steps: fixed work
  if (wanted("beam_search")) {
    o.beam = 5;
    auto ann = torch::randn({1, 196, 512}, torch::TensorOptions().device(device));
    auto search = [&] { (void)beam_search(*net, ann, o); };
    auto t = time_it(search, a->warmup, a->repeat, device);
    profile_once(a->profile, "beam_search", search);
    std::cout << report("beam_search", t, {{"beam", 5}, {"steps", 20}, {"sizes", "reference (512, vocab 10000)"}}, a->threads, device).dump()
              << std::endl;
  }
  if (wanted("greedy_batch")) {
    o.beam = 1;
    auto ann = torch::randn({32, 196, 512}, torch::TensorOptions().device(device));
    auto t = time_it([&] { (void)greedy_decode(*net, ann, o); }, a->warmup, a->repeat, device);
    std::cout << report("greedy_batch", t, {{"batch", 32}, {"steps", 20}, {"sizes", "reference (512, vocab 10000)"}}, a->threads, device).dump()
              << std::endl;
  }
}

/// caption_end_to_end: a file decoded, encoded and captioned (beam 3) with a model.
void bench_caption(const BenchArgs* a, const torch::Device& device) {
  Captioner captioner(a->model, a->device);
  CaptionOptions o;
  o.beam = 3;
  auto t = time_it([&] { (void)captioner.caption(read_image(a->image), o); }, a->warmup, a->repeat, device);
  std::cout << report("caption_end_to_end", t, {{"model", a->model}, {"image", a->image}, {"beam", 3}, {"includes", "file decode + encoder + beam search + alpha"}},
                      a->threads, device).dump()
            << std::endl;
}

/// encoder_train_step: the shipped model's encoder, forward and backward of one batch.
void bench_encoder_train_step(const BenchArgs* a, const torch::Device& device) {
  // The built-in encoder of the shipped model alone: forward + backward of one training batch
  // of random images (what dominates train_epoch_builtin).
  ModelConfig mc = Captioner(a->model, "cpu").config();
  const TrainConfig defaults;
  Encoder encoder(mc);
  encoder->to_device(device);
  encoder->train();
  const auto images = torch::rand({defaults.batch_size, 3, mc.image_size, mc.image_size}, torch::TensorOptions(device));
  auto step = [&] {
    encoder->zero_grad();
    compat::CpuBf16Autocast bf16(a->precision == "bf16");
    auto loss = encoder->forward(images).square().mean();
    bf16.end();
    loss.backward();
  };
  auto t = time_it(step, a->warmup, a->repeat, device);
  profile_once(a->profile, "encoder_train_step", step);
  std::cout << report("encoder_train_step", t,
                      {{"batch", defaults.batch_size}, {"image_size", mc.image_size}, {"widths", mc.encoder_widths},
                       {"includes", "forward + backward, no optimizer"}, {"precision", a->precision}},
                      a->threads, device).dump()
            << std::endl;
}

/// train_epoch_builtin: the shipped recipe's captioning steps, timed inside fovea::train.
void bench_train_epoch(const BenchArgs* a, const torch::Device& device) {
  // The shipped model's training configuration, timed over a few steps; images/s and the
  // epoch time they imply.
  Captioner shipped(a->model, "cpu");
  nlohmann::json info = shipped.info();
  TrainConfig tc;
  tc.model = shipped.config();
  tc.val_scenes = 16;
  tc.max_steps = a->train_steps + 5;
  tc.pretrain_steps = 0;  // the captioning steps are what is timed
  // From the shipped encoder, as the recipe.
  if (const auto encoder = default_encoder_path(); std::filesystem::exists(encoder)) tc.backbone = encoder;
  tc.epochs = 1;
  ::setenv("OMP_NUM_THREADS", std::to_string(a->threads).c_str(), 1);  // the trainer's thread count
  tc.device = a->device;
  tc.precision = a->precision;
  tc.out_dir = (std::filesystem::temp_directory_path() / ("fovea-bench-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(tc.out_dir);
  std::vector<double> at;
  TrainCallbacks cb;
  cb.on_progress = [&](const TrainProgress& p) {
    if (p.pretrain_step >= p.pretrain_steps && p.step > std::int64_t(at.size())) at.push_back(p.elapsed_s);
  };
  train(tc, cb);
  std::filesystem::remove_all(tc.out_dir);
  // Skip 5 warm-up steps; per-step seconds from the elapsed times.
  const double per_step = at.size() > 6 ? (at.back() - at[5]) / double(at.size() - 6) : 0;
  Timing t{per_step, per_step, per_step, int(at.size())};
  auto j = report("train_epoch_builtin", t, {{"batch", tc.batch_size}, {"image_size", tc.model.image_size}, {"steps_timed", int(at.size()) - 6},
                   {"decoder_parts", "auto"}},
                  a->threads, device);
  j["images_per_s"] = per_step > 0 ? tc.batch_size / per_step : 0;
  j["epoch_s"] = per_step * double(tc.train_scenes / tc.batch_size);
  std::cout << j.dump() << std::endl;
}

/// heatmap_render and figure_export: the GUI's overlay, and the figure laid out and drawn as PNG.
void bench_render(const BenchArgs* a, const torch::Device& device, const std::function<bool(const std::string&)>& wanted) {
  RgbImage base(512, 512, 90);
  std::vector<float> alpha(196);
  for (std::size_t i = 0; i < alpha.size(); ++i) alpha[i] = float((i * 37) % 196) / 196.0f;
  OverlayStyle style;
  RgbImage out;
  if (wanted("heatmap_render")) {
    auto t = time_it([&] { render_overlay_into(base, alpha, 14, 14, style, out); }, a->warmup, std::max(a->repeat, 50), device);
    std::cout << report("heatmap_render", t, {{"size", "512x512"}, {"grid", "14x14"}, {"smooth", true}}, a->threads, device).dump() << std::endl;
  }
  if (wanted("figure_export")) {
    CaptionResult c;
    c.grid_h = c.grid_w = 14;
    for (const char* w : {"a", "red", "sneaker", "to", "the", "left", "of", "a", "blue", "bag"}) c.words.push_back({w, alpha, 0.5f, -0.3f, -1});
    const RgbImage img(112, 112, 60);
    auto t = time_it([&] { (void)figure_png(layout_figure(img, c)); }, a->warmup, a->repeat, device);
    std::cout << report("figure_export", t, {{"words", 10}, {"width_pt", int(kDoubleColumnPt)}, {"dpi", 300}, {"format", "png"}}, a->threads, device).dump()
              << std::endl;
  }
}

}  // namespace

const std::vector<std::string>& bench_case_names() {
  static const std::vector<std::string> names{
      "sgemm", "decoder_train_step", "decoder_train_step_hard", "beam_search", "greedy_batch",
      "caption_end_to_end", "encoder_train_step", "train_epoch_builtin", "self_critical_step", "corpus_epoch", "op_count", "heatmap_render",
      "figure_export", "ui_latency", "live"};
  return names;
}

int run_bench(const BenchArgs& args) {
  const BenchArgs* a = &args;
  configure_threads(a->threads);
  const torch::Device device = resolve_device(a->device);
  auto wanted = [&](const std::string& name) {
    return a->cases.empty() || std::find(a->cases.begin(), a->cases.end(), name) != a->cases.end();
  };
  torch::manual_seed(1);
  // The kernels every figure below comes from: compare figures only between runs on the same ones.
  const auto kernels = cpu_kernels();
  std::cout << nlohmann::json({{"case", "environment"},
                               {"torch", compat::torch_version()},
                               {"device", device.str()},
                               {"threads", a->threads},
                               {"aten_cpu_capability", kernels.aten_capability},
                               {"blas", kernels.blas},
                               {"blas_core", kernels.blas_core},
                               // As the user's environment had it: empty where Fovea chose the core.
                               {"openblas_coretype_env", std::getenv("OPENBLAS_CORETYPE") && kernels.blas_core_fallback.empty()
                                                             ? std::getenv("OPENBLAS_CORETYPE")
                                                             : ""},
                               {"blas_core_fallback", kernels.blas_core_fallback},
                               {"blas_threads", kernels.blas_threads},
                               {"dnnl_max_cpu_isa", kernels.dnnl_max_isa},
                               {"native_bf16", kernels.native_bf16},
                               {"vector_kernels", kernels.vector_kernels},
                               {"denormals_flushed", denormals_flushed()},
                               {"glibc_tunables", std::getenv("GLIBC_TUNABLES") ? std::getenv("GLIBC_TUNABLES") : ""}})
                   .dump()
            << std::endl;
  double sgemm_gflops = 0;
  if (wanted("sgemm") || wanted("decoder_train_step")) sgemm_gflops = bench_sgemm(a, device);
  if (wanted("decoder_train_step")) bench_decoder_train_step(a, device, AttentionKind::Soft, sgemm_gflops);
  if (wanted("decoder_train_step_hard")) bench_decoder_train_step(a, device, AttentionKind::Hard, sgemm_gflops);
  if (wanted("beam_search") || wanted("greedy_batch")) bench_decoding(a, device, wanted);
  if (wanted("caption_end_to_end")) bench_caption(a, device);
  if (wanted("encoder_train_step")) bench_encoder_train_step(a, device);
  if (wanted("train_epoch_builtin")) bench_train_epoch(a, device);
  if (wanted("self_critical_step")) bench_self_critical_step(a);
  if (wanted("corpus_epoch")) bench_corpus_epoch(a);
  if (wanted("op_count")) bench_op_count(a->device);
  if (wanted("heatmap_render") || wanted("figure_export")) bench_render(a, device, wanted);
  if (wanted("ui_latency")) run_ui_latency(a->threads, a->ui_seconds);
  if (wanted("live")) bench_live(a->model, a->device, a->threads, a->warmup, a->repeat);
  return 0;
}

}  // namespace fovea::cli
