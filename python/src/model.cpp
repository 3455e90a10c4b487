// fovea.Model: the Python face of core/decode/captioner.h and core/eval/removal.h, the functions
// `fovea caption`, `fovea probe` and `fovea take-away` call.
#include <pybind11/stl.h>

#include <cmath>
#include <mutex>

#include "core/decode/caption_settings.h"
#include "core/decode/captioner.h"
#include "core/eval/removal.h"
#include "python/src/bindings.h"
#include "python/src/convert.h"
#include "python/src/core_call.h"
#include "python/src/results.h"

namespace fovea::py {

namespace {

/// A Captioner used by one Python thread at a time (the GIL is released while it works).
struct PyModel {
  std::unique_ptr<Captioner> captioner;
  std::mutex busy;
};

std::shared_ptr<PyResult> wrap(CaptionResult r, RgbImage image, std::string path, const Captioner& model) {
  return std::make_shared<PyResult>(PyResult{std::move(r), std::move(image), std::move(path), model.path()});
}

ProbeRegion region_from_python(const pyb::handle& o) {
  if (pyb::isinstance<pyb::str>(o)) return parse_probe_region(o.cast<std::string>());
  std::vector<double> v;
  try {
    v = o.cast<std::vector<double>>();
  } catch (const pyb::cast_error&) {
    throw pyb::type_error("region: (x0, y0, x1, y1), a rectangle in the image's pixels, or (x, y), a point, as numbers; not " +
                          std::string(pyb::repr(o)));
  }
  ProbeRegion r;
  if (v.size() == 2) r = ProbeRegion{v[0], v[1], v[0], v[1], true};
  else if (v.size() == 4) r = ProbeRegion{v[0], v[1], v[2], v[3], false};
  else throw pyb::value_error("a region is (x0, y0, x1, y1), a rectangle in the image's pixels, or (x, y), a point");
  check_probe_region(r);  // as the command line checks it, in the same words
  return r;
}

/// take_away()'s word: its index in the caption (negative from the end) or the word itself
/// (its first occurrence; a word the model does not know is shown as "zebra <unk>").
std::size_t word_index(const CaptionResult& caption, const pyb::handle& word) {
  const auto n = pyb::ssize_t(caption.words.size());
  if (pyb::isinstance<pyb::int_>(word)) {
    auto i = word.cast<pyb::ssize_t>();
    if (i < 0) i += n;
    if (i < 0 || i >= n)
      throw pyb::index_error("word " + std::string(pyb::str(word)) + ": the caption \"" + caption.text() + "\" has " +
                             std::to_string(n) + " words");
    return std::size_t(i);
  }
  if (!pyb::isinstance<pyb::str>(word))
    throw pyb::type_error("word: its index in the caption (int) or the word itself (str), not " +
                          pyb::str(pyb::type::of(word).attr("__name__")).cast<std::string>());
  const auto text = word.cast<std::string>();
  for (std::size_t i = 0; i < caption.words.size(); ++i)
    if (caption.words[i].word == text || caption.words[i].word == text + " <unk>") return i;
  throw pyb::value_error("word '" + text + "' is not in the caption \"" + caption.text() + "\"");
}

pyb::list probe_words(const std::vector<ProbeWord>& words) {
  pyb::list out;
  for (const auto& w : words) out.append(pyb::make_tuple(w.word, w.p));
  return out;
}

pyb::dict removal(const Removal& r, double drop) {
  pyb::dict d;
  d["cells"] = r.cells;
  d["p"] = r.p_word;
  d["drop"] = drop;
  d["caption"] = r.caption.text();
  d["word_still_said"] = r.word_still_said;
  d["image"] = image_to_numpy(r.image);
  return d;
}

/// What `work` returns, computed with the GIL released and the model held by this thread alone.
template <typename Work>
auto while_busy(PyModel& self, Work work) {
  CoreCall unlocked;
  std::lock_guard<std::mutex> lock(self.busy);
  return work();
}

std::shared_ptr<PyModel> open_model(const std::string& path, const std::string& device) {
  auto model = std::make_shared<PyModel>();
  CoreCall unlocked;
  model->captioner = std::make_unique<Captioner>(path, device);
  return model;
}

pyb::list caption_images(PyModel& self, const pyb::list& images, const pyb::dict& settings) {
  const CaptionOptions options = caption_options_from_python(settings);
  std::vector<RgbImage> pixels;
  std::vector<std::string> paths(images.size());
  for (std::size_t i = 0; i < images.size(); ++i) pixels.push_back(image_from_python(images[i], &paths[i]));
  auto results = while_busy(self, [&] {
    return pixels.size() == 1 ? std::vector<CaptionResult>{self.captioner->caption(pixels[0], options)}
                              : self.captioner->caption(pixels, options);
  });
  pyb::list out;
  for (std::size_t i = 0; i < results.size(); ++i)
    out.append(wrap(std::move(results[i]), std::move(pixels[i]), paths[i], *self.captioner));
  return out;
}

std::shared_ptr<PyResult> score_caption(PyModel& self, const pyb::handle& image, const std::string& caption) {
  std::string path;
  RgbImage pixels = image_from_python(image, &path);
  CaptionResult r = while_busy(self, [&] { return self.captioner->score(pixels, caption); });
  // A word the model does not know is scored as <unk>: its p is any unknown word's, so say which.
  std::string unknown;
  const std::string tag = " <unk>";
  for (const auto& w : r.words) {
    if (w.word.size() > tag.size() && w.word.compare(w.word.size() - tag.size(), tag.size(), tag) == 0)
      unknown += (unknown.empty() ? "'" : ", '") + w.word.substr(0, w.word.size() - tag.size()) + "'";
  }
  if (!unknown.empty()) {
    pyb::module_::import("warnings").attr("warn")(
        "not words this model knows, scored as <unk> (their p is that of any unknown word): " + unknown,
        pyb::handle(PyExc_UserWarning), 2);
  }
  return wrap(std::move(r), std::move(pixels), path, *self.captioner);
}

pyb::array_t<float> saliency_maps(PyModel& self, const pyb::handle& image, const std::string& caption) {
  RgbImage pixels = image_from_python(image);
  const auto maps = while_busy(self, [&] { return self.captioner->saliency(pixels, caption); });
  const auto& c = self.captioner->config();
  pyb::array_t<float> out({pyb::ssize_t(maps.size()), pyb::ssize_t(c.grid_h), pyb::ssize_t(c.grid_w)});
  float* dst = out.mutable_data();
  for (const auto& map : maps) dst = std::copy(map.begin(), map.end(), dst);
  return out;
}

pyb::dict probe_region(PyModel& self, const pyb::handle& image, const pyb::handle& region, const std::string& prefix, int top) {
  if (top < 1 || top > 100) throw pyb::value_error("top=" + std::to_string(top) + ": not in 1..100");
  RgbImage pixels = image_from_python(image);
  const ProbeRegion where = region_from_python(region);
  ProbeResult r = while_busy(self, [&] { return self.captioner->probe(pixels, where, prefix, top); });
  pyb::dict d;
  d["prefix"] = r.prefix;
  d["words"] = probe_words(r.words);
  d["own_words"] = probe_words(r.own_words);
  d["beta"] = r.beta;
  d["alpha"] = float_owned(std::move(r.alpha), r.grid_h, r.grid_w);
  d["own_alpha"] = float_owned(std::move(r.own_alpha), r.grid_h, r.grid_w);
  return d;
}

pyb::dict take_away_word(PyModel& self, const pyb::handle& image, const pyb::handle& word, const pyb::object& caption,
                         const pyb::dict& settings) {
  // Every caption setting, read as caption() reads them: the caption said and the captions left
  // after each removal are decoded alike (max_len, sample_glimpses and seed as well as beam).
  const CaptionOptions options = caption_options_from_python(settings);
  RgbImage pixels = image_from_python(image);
  const std::string given = caption.is_none() ? std::string() : caption.cast<std::string>();  // read while the GIL is held
  const CaptionResult said = while_busy(self, [&] {
    return caption.is_none() ? self.captioner->caption(pixels, options) : self.captioner->score(pixels, given);
  });
  const std::size_t index = word_index(said, word);
  const TakeAway t = while_busy(self, [&] { return take_away(*self.captioner, pixels, said, index, options); });
  pyb::dict d;
  d["caption"] = said.text();
  d["word"] = t.text;
  d["index"] = t.word;
  d["p"] = t.p_word;
  d["grid"] = pyb::make_tuple(t.grid_h, t.grid_w);
  d["attended"] = removal(t.attended, t.attended_drop());
  auto control = removal(t.control, t.control_drop());
  control["source"] = t.control_source >= 0 ? pyb::object(pyb::str(t.control_word)) : pyb::none();
  d["control"] = control;
  d["spread"] = t.spread;
  d["note"] = t.spread ? t.spread_note() : std::string();
  return d;
}

}  // namespace

void bind_model(pyb::module_& m) {
  pyb::class_<PyModel, std::shared_ptr<PyModel>>(m, "_Model")
      .def(pyb::init(&open_model), pyb::arg("path"), pyb::arg("device") = "cpu")
      .def("_caption", &caption_images)
      .def("score", &score_caption, pyb::arg("image"), pyb::arg("caption"),
           "score(image, caption) -> Result\n\n"
           "The model's alpha, beta and p for each word of a caption you give (teacher forcing), as\n"
           "fovea-studio's typed caption and `fovea take-away --caption` do; words outside the vocabulary are\n"
           "scored as <unk> (a UserWarning names them; their Word.word ends in \" <unk>\").")
      .def("saliency", &saliency_maps, pyb::arg("image"), pyb::arg("caption"),
           "saliency(image, caption) -> numpy.ndarray (words x grid_h x grid_w)\n\n"
           "Gradient saliency of each word of a caption: |d log p(word) / d image| summed over the colour\n"
           "channels, averaged onto the attention grid.")
      .def("probe", &probe_region, pyb::arg("image"), pyb::arg("region"), pyb::arg("prefix") = "", pyb::arg("top") = 5,
           "probe(image, region, prefix='', top=5) -> dict\n\n"
           "The next word after `prefix` (empty: the first word) with the model's attention forced onto\n"
           "`region`, in the image's pixels: (x0, y0, x1, y1) a rectangle, (x, y) a point, or the text\n"
           "`fovea probe --region` takes. As `fovea probe`: {prefix, words [(word, p)] best first, alpha\n"
           "(the forced one), own_words and own_alpha (with the model's own attention), beta}.")
      .def("_take_away", &take_away_word)
      .def_property_readonly("path", [](const PyModel& self) { return self.captioner->path(); }, "The model file")
      .def_property_readonly("attention", [](const PyModel& self) {
        return std::string(self.captioner->config().attention == AttentionKind::Hard ? "hard" : "soft");
      }, "\"soft\" or \"hard\"")
      .def_property_readonly("grid", [](const PyModel& self) {
        return pyb::make_tuple(self.captioner->config().grid_h, self.captioner->config().grid_w);
      }, "The attention grid (rows, columns)")
      .def_property_readonly("image_size", [](const PyModel& self) { return self.captioner->config().image_size; },
                             "The side images are resized to, in pixels")
      .def_property_readonly("checks_familiarity", [](const PyModel& self) { return self.captioner->checks_familiarity(); },
                             "Whether captions say how familiar each image is to the model")
      .def("info", [](const PyModel& self) { return to_python(self.captioner->info()); },
           "info() -> dict\n\nThe model's description, as `fovea info` prints it: attention kind, sizes, vocabulary,\n"
           "training data, steps, time and scores.");
}

}  // namespace fovea::py
