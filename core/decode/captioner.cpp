#include "core/decode/captioner.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <random>

#include "core/data/batching.h"
#include "core/data/image_tensor.h"
#include "core/data/tokenizer.h"
#include "core/decode/decoding.h"
#include "core/decode/familiarity.h"
#include "core/decode/split_annotations.h"
#include "core/model/checkpoint.h"
#include "core/runtime/runtime.h"
#include "core/runtime/thread_generator.h"

namespace fovea {

struct Captioner::Impl {
  LoadedCheckpoint ckpt;
  std::string path;
  std::optional<FamiliarityStats> familiarity;
  std::mt19937_64 seeds{std::random_device{}()};  ///< seeds of unseeded sampled draws
  std::unique_ptr<SplitAnnotations> split;        ///< caption_scenes()'s source and its cache

  /// Captions of annotations (B, L, D), with their familiarity when the file has the statistics.
  std::vector<CaptionResult> caption_annotations(const torch::Tensor& annotations, const CaptionOptions& options);
};

std::vector<CaptionResult> Captioner::Impl::caption_annotations(const torch::Tensor& annotations,
                                                                const CaptionOptions& options) {
  auto& m = ckpt.model;
  DecodeOptions d;
  d.beam = std::max(1, options.beam);
  d.max_len = options.max_len;
  // Sampled glimpses are a hard model's; a soft model always attends with its expected α.
  const bool sampled = options.sample_glimpses && m.config.attention == AttentionKind::Hard;
  d.glimpse = sampled ? Glimpse::Sampled : Glimpse::Expected;
  std::vector<DecodedCaption> decoded;
  if (sampled && options.seed) {
    // Seeded: each image draws from the seed's own stream, so an image's glimpses do not depend on
    // the images captioned with it (the same seed and image give the same caption, alone or in a batch).
    for (std::int64_t i = 0; i < annotations.size(0); ++i) {
      ScopedThreadGenerator draws(*options.seed);
      decoded.push_back(decode_annotations(*m.net, annotations.narrow(0, i, 1), d).front());
    }
  } else {
    std::optional<ScopedThreadGenerator> draws;  // this call's own stream, never the process-wide one
    if (sampled) draws.emplace(seeds());
    decoded = decode_annotations(*m.net, annotations, d);
  }
  std::vector<CaptionResult> out;
  for (const auto& dc : decoded) out.push_back(to_caption_result(dc, m));
  if (familiarity) {
    const auto distances = familiarity_distances(*familiarity, pooled_annotations(annotations));
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i].familiarity = Familiarity{distances[std::int64_t(i)].item<double>(), familiarity->threshold,
                                       familiarity->validation_q99};
  }
  return out;
}

Captioner::Captioner(const std::string& model_path, const std::string& device) : impl_(std::make_unique<Impl>()) {
  impl_->ckpt = load_checkpoint(model_path, resolve_device(device));
  try {
    impl_->familiarity = familiarity_from_tensors(read_checkpoint_extra(impl_->ckpt, familiarity_tensor_names()));
  } catch (const CheckpointError&) {
    // Written before models carried their training images' statistics: no check.
  }
  impl_->ckpt.archive.clear();
  impl_->ckpt.archive.shrink_to_fit();
  impl_->path = model_path;
}

Captioner::Captioner(const CaptionModel& model, const std::string& name) : impl_(std::make_unique<Impl>()) {
  impl_->ckpt.model = model;
  impl_->ckpt.path = name;
  impl_->path = name;
}

Captioner::~Captioner() = default;
Captioner::Captioner(Captioner&&) noexcept = default;
Captioner& Captioner::operator=(Captioner&&) noexcept = default;

const ModelConfig& Captioner::config() const { return impl_->ckpt.model.config; }
const std::string& Captioner::path() const { return impl_->path; }
bool Captioner::checks_familiarity() const { return impl_->familiarity.has_value(); }

std::vector<CaptionResult> Captioner::caption(const std::vector<RgbImage>& images, const CaptionOptions& options) {
  auto& m = impl_->ckpt.model;
  std::vector<const RgbImage*> ptrs;
  for (const auto& im : images) ptrs.push_back(&im);
  torch::NoGradGuard no_grad;
  m.net->eval();
  return impl_->caption_annotations(m.net->encode(images_to_tensor(ptrs, m.config.image_size).to(m.device)), options);
}

bool Captioner::reads_cached_annotations(const SceneSource& source) const {
  const auto& c = impl_->ckpt.model.config;
  return !c.backbone_path.empty() && !c.backbone_trainable && !source.content_key().empty();
}

std::vector<CaptionResult> Captioner::caption_scenes(std::shared_ptr<const SceneSource> source,
                                                     const std::vector<std::size_t>& indices,
                                                     const CaptionOptions& options,
                                                     const std::function<void(const std::string&)>& message) {
  auto& m = impl_->ckpt.model;
  if (!impl_->split || &impl_->split->source() != source.get()) {
    FeatureOptions features;
    features.on_message = message;
    const bool cached = reads_cached_annotations(*source);
    impl_->split = std::make_unique<SplitAnnotations>(m, std::move(source), cached, features);
  }
  torch::NoGradGuard no_grad;
  m.net->eval();
  return impl_->caption_annotations(impl_->split->read(indices), options);
}

std::int64_t Captioner::images_encoded() const { return impl_->ckpt.model.net->encoder->images_encoded(); }

CaptionResult Captioner::caption(const RgbImage& image, const CaptionOptions& options) {
  return caption(std::vector<RgbImage>{image}, options).front();
}

CaptionResult Captioner::score(const RgbImage& image, const std::string& caption) {
  auto& m = impl_->ckpt.model;
  torch::NoGradGuard no_grad;
  m.net->eval();
  const auto tokens = tokenize(caption);
  if (tokens.empty()) throw std::invalid_argument("the caption to score has no words");
  auto [tok, len] = pad_captions({m.vocab.encode(tokens)});
  auto out = m.net->forward(images_to_tensor({&image}, m.config.image_size).to(m.device), tok.to(m.device), len.to(m.device));
  auto lp = out.token_log_probs.cpu();
  auto alphas = out.alphas.cpu().contiguous();
  auto betas = out.betas.cpu();
  CaptionResult r;
  r.grid_h = int(m.config.grid_h);
  r.grid_w = int(m.config.grid_w);
  r.beta_gated = m.config.beta_gated();
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    auto a = alphas[long(t)];
    WordAttention w;
    w.word = m.vocab.index(tokens[t]) == Vocabulary::kUnk ? tokens[t] + " <unk>" : tokens[t];
    w.alpha.assign(a.data_ptr<float>(), a.data_ptr<float>() + a.numel());
    w.beta = betas[long(t)].item<float>();
    w.log_prob = lp[long(t)].item<float>();
    r.words.push_back(std::move(w));
  }
  r.log_prob = lp.sum().item<double>();
  return r;
}

std::vector<std::vector<float>> Captioner::saliency(const RgbImage& image, const std::string& caption) {
  auto& m = impl_->ckpt.model;
  m.net->eval();
  const auto tokens = tokenize(caption);
  if (tokens.empty()) throw std::invalid_argument("the caption has no words");
  auto [tok, len] = pad_captions({m.vocab.encode(tokens)});
  torch::Tensor x;
  {
    torch::NoGradGuard no_grad;
    x = images_to_tensor({&image}, m.config.image_size).to(m.device);
  }
  x.requires_grad_(true);
  const auto out = m.net->forward(x, tok.to(m.device), len.to(m.device));
  const auto lp = out.token_log_probs;
  std::vector<std::vector<float>> result;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const auto g = torch::autograd::grad({lp[std::int64_t(t)]}, {x}, {}, /*retain_graph=*/true)[0];
    const auto cells = torch::adaptive_avg_pool2d(g.abs().sum(1, true), {m.config.grid_h, m.config.grid_w})
                           .flatten()
                           .to(torch::kCPU, torch::kFloat)
                           .contiguous();
    result.emplace_back(cells.data_ptr<float>(), cells.data_ptr<float>() + cells.numel());
  }
  return result;
}

ProbeResult Captioner::probe(const RgbImage& image, const ProbeRegion& region, const std::string& prefix, int top) {
  return probe_model(impl_->ckpt.model, image, region, prefix, top);
}

nlohmann::json Captioner::info() const {
  const auto& m = impl_->ckpt.model;
  nlohmann::json j = {{"path", impl_->path},
                      {"attention", to_string(m.config.attention)},
                      {"grid", {m.config.grid_h, m.config.grid_w}},
                      {"annotation_dim", m.config.annotation_dim},
                      {"vocabulary", m.vocab.size()},
                      {"beta_gated", m.config.beta_gated()},
                      {"model", to_json(m.config)}};
  std::vector<std::string> words;  // what it can say: the first words of its vocabulary
  for (const auto& w : m.vocab.words()) {
    if (words.size() == 40) break;
    if (w.empty() || w.front() != '<') words.push_back(w);  // not <pad>, <start>, <end>, <unk>
  }
  j["vocabulary_sample"] = words;
  if (!m.config.backbone_path.empty()) {
    j["backbone"] = describe_embedded_backbone(m.config);
    j["backbone"]["in_model_file"] = impl_->ckpt.backbone_embedded;
  }
  if (impl_->familiarity)
    j["familiarity"] = {{"validation_q99", impl_->familiarity->validation_q99}, {"threshold", impl_->familiarity->threshold}};
  const auto& t = impl_->ckpt.training;
  if (t.is_object()) {
    // The step these weights are from and the training time until then: a best.ckpt is saved at
    // its best validation score, often before the run's last step (the model card has the run).
    j["saved_at_step"] = t.value("step", 0);
    j["best_val_bleu4"] = t.value("best_bleu4", 0.0);
    // What best.ckpt was chosen by: BLEU-4, or CIDEr-D / the validation NLL while BLEU-4 was near 0.
    j["best_val"] = {{"metric", t.value("best_metric", std::string("BLEU-4"))},
                     {"value", t.value("best_score", t.value("best_bleu4", 0.0))}};
    j["saved_after_s"] = t.value("elapsed_s", 0.0);
    if (t.contains("config")) {
      const auto& config = t["config"];
      j["dataset"] = config.value("dataset", "");
      // Whether α was taught where to look (docs/design.md §2) or found it from the captions alone:
      // the supervision needs object boxes, so a weight without them trained nothing.
      const bool boxes = t.value("object_boxes", true);  // older files: the built-in scenes, with boxes
      const double supervision = boxes ? config.value("attention_supervision", 0.0) : 0.0;
      j["attention_supervised"] = supervision > 0;
      j["auxiliary_heads_trained"] = boxes && config.value("aux_weight", 0.0) > 0;
      j["attention_training"] =
          supervision > 0
              ? "supervised: trained to spread alpha over the box of the object each word names (weight " +
                    nlohmann::json(supervision).dump() + ")"
              : std::string("unsupervised: alpha learned from the captions alone, as in the paper");
    }
  }
  return j;
}

}  // namespace fovea
