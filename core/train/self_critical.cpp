#include "core/train/self_critical.h"

#include <ATen/Parallel.h>

#include "core/data/batching.h"
#include "core/data/tokenizer.h"
#include "core/decode/caption_sampling.h"
#include "core/decode/decoding.h"

namespace fovea {

namespace {

std::vector<std::vector<Tokens>> corpus_references(const SceneSource& train, std::size_t max_images) {
  std::vector<std::vector<Tokens>> corpus;
  const auto n = std::min(train.size(), max_images);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<Tokens> refs;
    for (const auto& c : train.get_without_image(i).captions) refs.push_back(tokenize(c));
    corpus.push_back(std::move(refs));
  }
  return corpus;
}

Tokens words_of(const std::vector<std::int64_t>& tokens, const Vocabulary& vocab) {
  Tokens words;
  for (auto t : tokens) words.push_back(vocab.word(t));
  return words;
}

}  // namespace

SelfCriticalReward::SelfCriticalReward(const SceneSource& train, std::size_t max_images)
    : cider_(corpus_references(train, max_images)) {}

SelfCriticalRows self_critical_rows(ShowAttendTellImpl& net, const Vocabulary& vocab, const torch::Tensor& annotations,
                                    const std::vector<Scene>& scenes, const SelfCriticalReward& reward,
                                    const std::string& baseline, std::uint64_t seed, std::int64_t grid_h,
                                    std::int64_t grid_w) {
  constexpr int K = kSelfCriticalSamples;
  const auto B = annotations.size(0);
  TORCH_CHECK(std::size_t(B) == scenes.size(), "self-critical step: ", B, " images but ", scenes.size(), " scenes");
  const auto samples = sample_captions(net, annotations, K, seed);
  std::vector<DecodedCaption> greedy;
  if (baseline == "greedy") {
    DecodeOptions options;
    options.beam = 1;
    greedy = greedy_decode(net, annotations, options);
  }
  // Rewards and baselines, one image at a time on every core: CIDEr-D is plain C++ on the host.
  std::vector<Tokens> words(samples.size());
  std::vector<double> rewards(samples.size()), baselines(samples.size());
  at::parallel_for(0, B, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      std::vector<Tokens> references;
      for (const auto& c : scenes[std::size_t(i)].captions) references.push_back(tokenize(c));
      std::vector<Tokens> candidates;
      for (int k = 0; k < K; ++k) {
        words[std::size_t(i * K + k)] = words_of(samples[std::size_t(i * K + k)].tokens, vocab);
        candidates.push_back(words[std::size_t(i * K + k)]);
      }
      if (!greedy.empty()) candidates.push_back(words_of(greedy[std::size_t(i)].tokens(), vocab));
      const auto scores = reward.score(candidates, references);
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += scores[std::size_t(k)];
      for (int k = 0; k < K; ++k) {
        const auto row = std::size_t(i * K + k);
        rewards[row] = scores[std::size_t(k)];
        baselines[row] = greedy.empty() ? (sum - scores[std::size_t(k)]) / double(K - 1) : scores[std::size_t(K)];
      }
    }
  });

  SelfCriticalRows out;
  std::vector<std::vector<std::int64_t>> encoded;
  std::vector<float> advantages;
  for (std::size_t r = 0; r < samples.size(); ++r) {
    std::vector<std::int64_t> e{Vocabulary::kStart};
    e.insert(e.end(), samples[r].tokens.begin(), samples[r].tokens.end());
    if (samples[r].finished) e.push_back(Vocabulary::kEnd);
    encoded.push_back(std::move(e));
    const double a = rewards[r] - baselines[r];
    advantages.push_back(float(a));
    auto& f = out.figures;
    f.captions += 1;
    f.reward += rewards[r];
    f.baseline += baselines[r];
    f.advantage_sq += a * a;
    f.words += double(samples[r].tokens.size());
    f.ended += samples[r].finished ? 1 : 0;
  }
  std::tie(out.tokens, out.lengths) = pad_captions(encoded);
  out.advantages = torch::tensor(advantages, torch::kFloat);
  if (grid_h > 0 && grid_w > 0) {
    std::vector<const Scene*> of;
    for (std::size_t r = 0; r < samples.size(); ++r) of.push_back(&scenes[r / K]);
    std::tie(out.word_boxes, out.word_has_box) = word_box_targets(of, words, out.tokens.size(1) - 1, grid_h, grid_w);
  }
  return out;
}

}  // namespace fovea
