#include "core/eval/scene_evaluation.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/data/tokenizer.h"
#include "core/eval/caption_metrics.h"

namespace fovea {

SceneEvaluation evaluate_scenes(const CaptionScenes& caption, const SceneSource& source, std::size_t chunk,
                                const EachCaptionedScene& each, bool read_images) {
  SceneEvaluation e;
  std::vector<Tokens> candidates;
  std::vector<std::vector<Tokens>> references;
  for (std::size_t start = 0; start < source.size(); start += chunk) {
    std::vector<Scene> batch;
    std::vector<std::size_t> indices;
    for (std::size_t i = start; i < std::min(source.size(), start + chunk); ++i) {
      batch.push_back(read_images ? source.get(i) : source.get_without_image(i));
      indices.push_back(i);
    }
    const auto results = caption(indices, batch);
    for (std::size_t k = 0; k < batch.size(); ++k) {
      candidates.push_back(tokenize(results[k].text()));
      std::vector<Tokens> refs;
      for (const auto& c : batch[k].captions) refs.push_back(tokenize(c));
      references.push_back(std::move(refs));
      if (!batch[k].objects.empty()) {
        e.has_boxes = true;
        accumulate_grounding(batch[k], results[k], e.grounding);
      }
      if (each) each(batch[k], results[k]);
      e.captions[batch[k].id] = results[k].text();
      e.references[batch[k].id] = batch[k].captions;
    }
  }
  e.scenes = candidates.size();
  const auto bleu = corpus_bleu(candidates, references);
  for (int n = 0; n < 4; ++n) e.bleu[n] = bleu[std::size_t(n)];
  e.rouge_l = mean(rouge_l(candidates, references));
  e.cider = mean(cider_d(candidates, references));
  return e;
}

SceneEvaluation evaluate_scenes(Captioner& captioner, std::shared_ptr<const SceneSource> source,
                                const CaptionOptions& options, std::size_t chunk, bool faithfulness, bool probes,
                                const std::function<void(const std::string&)>& message) {
  FaithfulnessReport report;
  const bool hard = captioner.config().attention == AttentionKind::Hard;
  report.kind = !hard ? "soft" : options.sample_glimpses ? "hard, sampled glimpses" : "hard, expected alpha";
  ProbeReport probe_report;
  EachCaptionedScene each;
  if (faithfulness || probes) {
    each = [&](const Scene& scene, const CaptionResult& c) {
      if (faithfulness) accumulate_faithfulness(captioner, scene, c, report);
      if (probes) accumulate_probes(captioner, scene, probe_report);
    };
  }
  // Faithfulness and probes change the image itself: they need its pixels.
  const bool images = faithfulness || probes || !captioner.reads_cached_annotations(*source);
  auto e = evaluate_scenes(
      [&](const std::vector<std::size_t>& indices, const std::vector<Scene>& scenes) {
        if (!images) return captioner.caption_scenes(source, indices, options, message);
        std::vector<RgbImage> pixels;
        for (const auto& s : scenes) pixels.push_back(s.image);
        return captioner.caption(pixels, options);
      },
      *source, chunk, each, images);
  e.has_faithfulness = faithfulness;
  e.faithfulness = std::move(report);
  e.has_probes = probes;
  e.probes = std::move(probe_report);
  return e;
}

nlohmann::json to_json(const SceneEvaluation& e) {
  nlohmann::json j = {{"scenes", e.scenes},  {"Bleu_1", e.bleu[0]},  {"Bleu_2", e.bleu[1]}, {"Bleu_3", e.bleu[2]},
                      {"Bleu_4", e.bleu[3]}, {"ROUGE_L", e.rouge_l}, {"CIDEr", e.cider},    {"grounding", to_json(e.grounding)}};
  if (e.has_faithfulness && e.faithfulness.all.count == 0) {
    // No noun could be tested (no object boxes): no rates, rather than rates of 0 that read as measured.
    j["faithfulness"] = {{"measured", false}, {"count", 0}, {"reason", kFaithfulnessUnmeasured}};
  } else if (e.has_faithfulness) {
    j["faithfulness"] = to_json(e.faithfulness);
    j["faithfulness"]["measured"] = true;
  }
  if (e.has_probes) j["probe"] = to_json(e.probes);
  return j;
}

}  // namespace fovea
