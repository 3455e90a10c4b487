// fovea.read_run and fovea.score: a run folder's records (core/train/run_log.h) and the
// coco-caption metrics (core/eval/caption_scores.h), as `fovea score` computes them.
#include <pybind11/stl.h>

#include <map>
#include <type_traits>

#include "core/eval/caption_scores.h"
#include "core/train/run_log.h"
#include "python/src/bindings.h"
#include "python/src/convert.h"

namespace fovea::py {

namespace {

/// Records as columns: {key: [value per record]}, keys in the order first met, None where a
/// record lacks one (older runs logged fewer); "kind" left out.
template <class Record>
pyb::dict columns(const std::vector<Record>& records) {
  std::vector<std::string> keys;
  std::vector<nlohmann::json> rows;
  for (const auto& r : records) {
    rows.push_back(to_json(r));
    for (auto it = rows.back().begin(); it != rows.back().end(); ++it)
      if (it.key() != "kind" && std::find(keys.begin(), keys.end(), it.key()) == keys.end()) keys.push_back(it.key());
  }
  pyb::dict out;
  for (const auto& k : keys) {
    pyb::list column;
    for (const auto& row : rows) column.append(row.contains(k) ? to_python(row[k]) : pyb::none());
    out[pyb::str(k)] = column;
  }
  return out;
}

/// Candidates or references given as a dict {image id: ...} or a list (ids 0, 1, ...).
/// One entry, or a TypeError that says what it should have been (pybind11's own cast error names
/// no argument and no type).
template <class Value>
Value entry(const pyb::handle& v, const char* what, const std::string& key) {
  try {
    return v.cast<Value>();
  } catch (const pyb::cast_error&) {
    const bool caption = std::is_same_v<Value, std::string>;
    throw pyb::type_error(std::string(what) + "[" + key + "]: " +
                          (caption ? "a caption (str)" : "a list of reference captions (str)") + ", not " +
                          pyb::str(pyb::type::of(v).attr("__name__")).cast<std::string>());
  }
}

template <class Value>
std::map<std::int64_t, Value> by_id(const pyb::handle& o, const char* what) {
  std::map<std::int64_t, Value> out;
  if (pyb::isinstance<pyb::dict>(o)) {
    for (const auto& kv : o.cast<pyb::dict>()) {
      const std::string key = pyb::repr(kv.first).cast<std::string>();
      if (!pyb::isinstance<pyb::int_>(kv.first)) throw pyb::type_error(std::string(what) + ": image ids are ints, not " + key);
      out[kv.first.cast<std::int64_t>()] = entry<Value>(kv.second, what, key);
    }
  } else if (pyb::isinstance<pyb::list>(o) || pyb::isinstance<pyb::tuple>(o)) {
    std::int64_t i = 0;
    for (const auto& v : o) {
      out[i] = entry<Value>(v, what, std::to_string(i));
      ++i;
    }
  } else {
    throw pyb::type_error(std::string(what) + ": a dict {image id: ...} or a list, not " +
                          pyb::str(pyb::type::of(o).attr("__name__")).cast<std::string>());
  }
  return out;
}

}  // namespace

void bind_runs(pyb::module_& m) {
  m.def("_read_run", [](const std::string& dir, bool with_samples) {
    RunLog log;
    {
      pyb::gil_scoped_release unlocked;
      log = read_run_log(dir, with_samples);
    }
    pyb::dict d;
    d["dir"] = log.dir;
    d["name"] = log.name();
    d["config"] = log.has_config ? to_python(to_json(log.config)) : pyb::none();
    d["train"] = columns(log.train);
    d["validation"] = columns(log.val);
    d["pretrain"] = columns(log.pretrain);
    pyb::list events;
    for (const auto& e : log.events) events.append(to_python(to_json(e)));
    d["events"] = events;
    pyb::list samples;
    for (const auto& s : log.samples) samples.append(to_python(to_json(s)));
    d["samples"] = samples;
    d["finished"] = log.finished;
    d["failed"] = log.failed;
    d["failure"] = log.failure;
    d["last_step"] = log.last_step();
    d["best_bleu4"] = log.best_bleu4();
    const auto best = log.best();
    d["best_metric"] = best.metric;
    d["best_score"] = best.score;
    d["has_last_checkpoint"] = log.has_last_checkpoint;
    d["has_best_checkpoint"] = log.has_best_checkpoint;
    d["checkpoint_step"] = log.checkpoint_step;
    d["skipped_lines"] = log.skipped_lines;
    return d;
  });

  m.def(
      "find_runs", [](const pyb::object& root) { return find_runs(pyb::str(pyb::module_::import("os").attr("fspath")(root)).cast<std::string>()); },
      pyb::arg("root"),
        "find_runs(root) -> list of str\n\n"
        "The run folders under `root` (root itself and its direct subfolders holding metrics.jsonl),\n"
        "sorted by name, as fovea-studio's run list finds them.");

  m.def(
      "score",
      [](const pyb::handle& candidates, const pyb::handle& references, bool per_image) {
        const auto results = by_id<std::string>(candidates, "candidates");
        const auto refs = by_id<std::vector<std::string>>(references, "references");
        if (results.empty()) throw pyb::value_error("score: no candidate captions to score");
        CaptionScores s;
        {
          pyb::gil_scoped_release unlocked;
          s = score_captions(refs, results);
        }
        pyb::dict out = to_python(to_json(s));
        if (per_image) out["per_image"] = to_python(per_image_json(s));
        return out;
      },
      pyb::arg("candidates"), pyb::arg("references"), pyb::arg("per_image") = false,
      "score(candidates, references, per_image=False) -> dict\n\n"
      "The coco-caption metrics of candidate captions against reference captions, as `fovea score`\n"
      "computes them (PTB tokenisation, corpus BLEU-1..4, ROUGE-L, CIDEr-D): {\"Bleu_1\", ..., \"Bleu_4\",\n"
      "\"ROUGE_L\", \"CIDEr\"}, the toolkit's key names. candidates: {image id: caption} or a list of\n"
      "captions; references: {image id: [captions]} or a list of lists, the same images. With\n"
      "per_image=True also \"per_image\": a list of each image's scores. CIDEr-D weighs n-grams by how\n"
      "rare they are across the images scored: one image alone scores 0.\n\n"
      "    >>> fovea.score([\"a red shirt\"], [[\"a red shirt\", \"a shirt in red\"]])[\"Bleu_1\"]");
}

}  // namespace fovea::py
