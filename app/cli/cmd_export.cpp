// fovea export: the annotated figure (image + one heatmap panel per word) as PNG, SVG or PDF,
// and optionally the word-by-word animation frames; the same core/render/figure.h code as the GUI.
// A web page of one image (core/render/web_page.h), or of a folder's images (app/cli/export_gallery.h).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

#include "core/io/model_name.h"
#include "app/cli/caption_options.h"
#include "app/cli/commands.h"
#include "app/cli/export_gallery.h"
#include "app/cli/video_commands.h"
#include "core/data/video_io.h"
#include "core/runtime/data_paths.h"
#include "core/data/image_io.h"
#include "core/decode/captioner.h"
#include "core/eval/reference_captions.h"
#include "core/render/figure.h"
#include "core/render/web_page.h"

namespace fovea::cli {

namespace {
struct ExportArgs {
  CaptionChoices c{default_model_path()};
  std::string image, out, frames, caption, colormap = "spotlight", width = "double", format, compare;
  int columns = 0, frame_size = 448;
  double dpi = 300;
  bool blocky = false, no_probability = false;
  float opacity = 0.6f;
};

/// --format html of a folder: its gallery page. 1 when images were left out (the page is written
/// without them, and the command fails as caption does).
int export_folder(const ExportArgs& a) {
  const auto ext = std::filesystem::path(a.out).extension().string();
  if (a.out.empty() || (ext != ".html" && ext != ".htm") || (!a.format.empty() && a.format != "html"))
    throw std::invalid_argument(a.image + " is a folder: its gallery is a web page, --out FILE.html (--format html)");
  if (!a.frames.empty() || !a.caption.empty())
    throw std::invalid_argument(a.image + " is a folder: --frames and --caption are for one image");
  return export_gallery(a.image, a.out, a.c, a.compare, a.colormap == "spotlight" ? "spotlight" : "heatmap") > 0 ? 1 : 0;
}

FigureOptions figure_options(const ExportArgs& a) {
  FigureOptions fig;
  fig.style.colormap = parse_colormap(a.colormap);
  fig.style.opacity = a.opacity;
  fig.style.smooth = !a.blocky;
  fig.width_pt = parse_figure_width(a.width);
  fig.dpi = a.dpi;
  fig.columns = a.columns;
  fig.show_probability = !a.no_probability;
  return fig;
}

/// One image: its caption (or the one given, scored), then the figure or web page and the frames.
int export_image(const ExportArgs& a, const FigureOptions& fig) {
  if (!a.compare.empty()) throw std::invalid_argument("--compare is for a folder's gallery page: give a folder of images");
  const RgbImage image = read_image(a.image);
  Captioner captioner(a.c.model, a.c.device);
  CaptionResult result;
  if (a.caption.empty()) {
    CaptionOptions opts;
    opts.beam = a.c.options().beam;
    opts.sample_glimpses = a.c.sample_glimpses;
    result = captioner.caption(image, opts);
  } else {
    result = captioner.score(image, a.caption);
  }
  std::cout << result.text() << "\n";
  auto extension = std::filesystem::path(a.out).extension().string();
  if (extension == ".htm") extension = ".html";
  if (!a.out.empty() && !a.format.empty() && extension != "." + a.format) {
    throw std::invalid_argument("--format " + a.format + " and --out " + a.out + " disagree: name the file ." + a.format);
  }
  if (!a.out.empty() && extension == ".html") {
    WebPageOptions page;
    page.model = model_display_name(a.c.model);
    page.references = ReferenceCaptions::read_folder(std::filesystem::path(a.image).parent_path().string())
                          .of(std::filesystem::path(a.image).filename().string());
    page.style = a.colormap == "spotlight" ? "spotlight" : "heatmap";
    write_web_page(a.out, image, result, page);
    std::cout << "wrote " << a.out << " (a web page: " << result.words.size() << " words, "
              << std::filesystem::file_size(a.out) / 1024 << " KiB)\n";
  } else if (!a.out.empty()) {
    write_figure(a.out, image, result, fig);
    std::cout << "wrote " << a.out << " (" << result.words.size() + 1 << " panels)\n";
  }
  if (!a.frames.empty()) {
    const auto paths = write_animation_frames(a.frames, image, result, fig.style, a.frame_size);
    std::cout << "wrote " << paths.size() << " frames into " << a.frames << "\n";
  }
  return 0;
}

}  // namespace

Runner add_export_command(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  app.add_option("image", a->image, "Image file, a folder of images for a gallery page (--format html), or a video file or "
                                    "camera (/dev/videoN): --out CLIP.mp4")
      ->required();
  app.add_option("--out,-o", a->out, "Figure file: .png, .svg or .pdf, or .html (a web page)");
  app.add_option("--format", a->format, "png, svg, pdf or html (a self-contained web page: hover a word to see its alpha); "
                                        "default: --out's extension")
      ->check(CLI::IsMember({"png", "svg", "pdf", "html"}));
  app.add_option("--compare", a->compare, "Gallery page: also caption with this model file, shown beside the first");
  app.add_option("--frames", a->frames, "Also write the word-by-word animation as PNG frames into this folder");
  app.add_option("--caption", a->caption, "Show where the model looks for this caption (teacher forcing) instead of its own");
  add_caption_options(app, a->c, {"model", "beam", "greedy", "sample_glimpses", "seed", "device"});
  app.add_option("--colormap", a->colormap, "spotlight (the image darkened outside the attention), viridis, inferno, jet or gray")->capture_default_str();
  app.add_option("--opacity", a->opacity, "Heatmap opacity 0..1")->check(CLI::Range(0.0f, 1.0f))->capture_default_str();
  app.add_flag("--blocky", a->blocky, "One flat block per attention cell instead of smooth upsampling");
  app.add_option("--width", a->width, "Figure width: column (8.5 cm), double (17.8 cm) or a length such as 12cm, 90mm, 5in, 400pt")
      ->capture_default_str();
  app.add_option("--dpi", a->dpi, "PNG resolution in pixels per inch")->check(CLI::Range(10.0, 2400.0))->capture_default_str();
  app.add_option("--columns", a->columns, "Panels per row (0: as many as fit, about 80 pt each)")->check(CLI::Range(0, 64));
  app.add_flag("--no-probability", a->no_probability, "Leave p(word) out of the labels");
  auto* frame_size = app.add_option("--frame-size", a->frame_size, "Animation frame width (a video: the output's width, default the input's)")
                         ->check(CLI::Range(64, 4096))
                         ->capture_default_str();
  return [a, frame_size]() -> int {
    if (a->out.empty() && a->frames.empty()) throw std::invalid_argument("nothing to export: give --out FIG.(png|svg|pdf|html) and/or --frames DIR");
    std::error_code ec;
    if (!a->out.empty() && std::filesystem::equivalent(a->out, a->image, ec)) {
      throw std::invalid_argument("--out " + a->out + " is the image itself: write the figure to another file");
    }
    if (is_video_path(a->image)) {
      const OverlayStyle style{parse_colormap(a->colormap), a->opacity, !a->blocky};
      return export_video(a->image, a->out, a->c, style, frame_size->count() ? a->frame_size : 0);
    }
    const FigureOptions fig = figure_options(*a);  // a bad --width or --colormap is refused for a folder too
    if (std::filesystem::is_directory(a->image)) return export_folder(*a);
    return export_image(*a, fig);
  };
}

}  // namespace fovea::cli
