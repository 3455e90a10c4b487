// A caption as a self-contained web page from Python (core/render/web_page.h): the page
// `fovea export IMAGE --out page.html` writes, for a notebook to show or a file to share.
#include <pybind11/stl.h>

#include <filesystem>

#include "core/eval/reference_captions.h"
#include "core/render/web_page.h"
#include "python/src/bindings.h"
#include "python/src/results.h"

namespace fovea::py {

namespace pyb = pybind11;

void bind_pages(pyb::module_& m) {
  m.def(
      "_web_page",
      [](const PyResult& r, const std::string& title, const std::string& style) {
        WebPageOptions options;
        options.title = title;
        options.style = style;
        if (!r.model.empty()) options.model = std::filesystem::path(r.model).filename().string();
        if (!r.path.empty()) {  // the reference captions of the image's folder, as fovea export finds them
          const std::filesystem::path file(r.path);
          options.references = ReferenceCaptions::read_folder(file.parent_path().string()).of(file.filename().string());
        }
        return web_page(r.image, r.result, options);
      },
      pyb::arg("result"), pyb::arg("title"), pyb::arg("style"));
}

}  // namespace fovea::py
