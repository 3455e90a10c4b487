#include "python/src/results.h"

#include <pybind11/stl.h>

#include <cmath>

#include "python/src/convert.h"

namespace fovea::py {

namespace {

pyb::object familiarity(const CaptionResult& r) {
  if (!r.familiarity) return pyb::none();
  pyb::dict d;
  d["familiar"] = r.familiarity->familiar();
  d["distance"] = r.familiarity->distance;
  d["threshold"] = r.familiarity->threshold;
  d["validation_q99"] = r.familiarity->validation_q99;
  return std::move(d);
}

pyb::object word_object(const std::shared_ptr<PyResult>& r, std::size_t i) {
  return pyb::cast(PyWord{r, i});
}

}  // namespace

void bind_results(pyb::module_& m) {
  pyb::class_<PyWord>(m, "Word", "One word of a caption: the word, where the model looked (alpha), the gate beta and p.")
      .def_property_readonly("word", [](const PyWord& w) { return w.get().word; }, "The word; one the model does not know is followed by \" <unk>\" (\"giraffe <unk>\")")
      .def_property_readonly(
          "alpha",
          [](const PyWord& w) {
            const auto& r = w.owner->result;
            return float_view(w.get().alpha, r.grid_h, r.grid_w, pyb::cast(w.owner));
          },
          "alpha over the attention grid: a float32 NumPy array grid_h x grid_w, summing to 1, sharing the\n"
          "result's memory (alpha_tensor is the same memory as a torch tensor)")
      .def_property_readonly("beta", [](const PyWord& w) { return w.get().beta; },
                             "The soft-attention gate on the context at this word (1 when the model has none)")
      .def_property_readonly("p", [](const PyWord& w) { return std::exp(double(w.get().log_prob)); },
                             "p(word | image, previous words)")
      .def_property_readonly("log_prob", [](const PyWord& w) { return w.get().log_prob; }, "log p(word | image, previous words)")
      .def_property_readonly(
          "glimpse",
          [](const PyWord& w) -> pyb::object {
            const auto g = w.get().glimpse;
            if (g < 0) return pyb::none();
            return pyb::make_tuple(g / w.owner->result.grid_w, g % w.owner->result.grid_w);
          },
          "Hard models with sampled glimpses: the (row, column) of the cell looked at; else None")
      .def_property_readonly("index", [](const PyWord& w) { return w.index; }, "Its position in the caption (0 = first)")
      .def_property_readonly("result", [](const PyWord& w) { return w.owner; }, "The caption it belongs to")
      .def("__repr__", [](const PyWord& w) {
        char p[32];
        std::snprintf(p, sizeof p, "%.3f", std::exp(double(w.get().log_prob)));
        return "<fovea.Word '" + w.get().word + "' p=" + p + ">";
      });

  pyb::class_<PyResult, std::shared_ptr<PyResult>>(
      m, "Result",
      "A caption: its words with alpha, beta and p (a sequence of fovea.Word), the text, and the image it\n"
      "describes. result.to_json() is what `fovea caption --json` prints for it.")
      .def_property_readonly("text", [](const PyResult& r) { return r.result.text(); }, "The caption as one line")
      .def_property_readonly(
          "words",
          [](const std::shared_ptr<PyResult>& r) {
            pyb::list out;
            for (std::size_t i = 0; i < r->result.words.size(); ++i) out.append(word_object(r, i));
            return out;
          },
          "The words, each a fovea.Word")
      .def_property_readonly("log_prob", [](const PyResult& r) { return r.result.log_prob; },
                             "log p of the whole caption (with <end> when it finished)")
      .def_property_readonly("finished", [](const PyResult& r) { return r.result.finished; },
                             "False when no <end> came within the length limit")
      .def_property_readonly("grid", [](const PyResult& r) { return pyb::make_tuple(r.result.grid_h, r.result.grid_w); },
                             "The attention grid (rows, columns)")
      .def_property_readonly("beta_gated", [](const PyResult& r) { return r.result.beta_gated; },
                             "Whether beta gates the context (soft models with the gate); else every beta is 1")
      .def_property_readonly("familiarity", [](const PyResult& r) { return familiarity(r.result); },
                             "How far the image is from the model's training images: {familiar, distance, threshold,\n"
                             "validation_q99}, or None for a model file without their statistics")
      .def_property_readonly("image", [](const PyResult& r) { return image_to_numpy(r.image); },
                             "The image captioned, an H x W x 3 uint8 NumPy array (a copy)")
      .def_property_readonly("path", [](const PyResult& r) -> pyb::object {
        if (r.path.empty()) return pyb::none();
        return pyb::str(r.path);
      }, "The image's file, or None for an array")
      .def("to_json", [](const PyResult& r) {
        auto j = to_json(r.result);
        if (!r.path.empty()) j["image"] = r.path;
        return to_python(j);
      }, "The result as `fovea caption --json` writes it (a dict: caption, log_prob, finished, grid, words\n"
         "[{word, log_prob, beta, alpha}], ...), with \"image\" when it came from a file")
      .def("__len__", [](const PyResult& r) { return r.result.words.size(); })
      .def("__getitem__", [](const std::shared_ptr<PyResult>& r, pyb::ssize_t i) {
        const auto n = pyb::ssize_t(r->result.words.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) throw pyb::index_error("word " + std::to_string(i) + " of a caption of " + std::to_string(n) + " words");
        return word_object(r, std::size_t(i));
      })
      .def("__repr__", [](const PyResult& r) { return "<fovea.Result '" + r.result.text() + "'>"; });
}

}  // namespace fovea::py
