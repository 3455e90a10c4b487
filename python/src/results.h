#pragma once
// The Python objects behind fovea.Result and fovea.Word: a caption result with the image it
// describes, shared by the words and the α arrays that view it.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "core/data/image.h"
#include "core/decode/caption_result.h"

namespace fovea::py {

struct PyResult {
  CaptionResult result;
  RgbImage image;    ///< the image captioned (for show() and the α overlay)
  std::string path;  ///< its file, when it came from one
  std::string model;  ///< the model file that made it
};

struct PyWord {
  std::shared_ptr<PyResult> owner;
  std::size_t index = 0;
  const WordAttention& get() const { return owner->result.words[index]; }
};

void bind_results(pybind11::module_& m);

}  // namespace fovea::py
