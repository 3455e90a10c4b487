// fovea caption / fovea info: the CLI face of core/decode/captioner.h.
#include <CLI/CLI.hpp>

#include <iostream>
#include <cstdint>
#include <memory>
#include <optional>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/io/model_name.h"
#include "app/cli/commands.h"
#include "app/cli/caption_options.h"
#include "app/cli/video_commands.h"
#include "core/data/video_io.h"
#include "core/runtime/data_paths.h"
#include "core/data/image_io.h"
#include "core/decode/captioner.h"
#include "core/io/encoder_file_header.h"

namespace fovea::cli {

namespace {
struct CaptionArgs {
  CaptionChoices c{default_model_path()};
  std::vector<std::string> images;
  bool json = false;
};
}  // namespace

Runner add_caption_command(CLI::App& app) {
  auto a = std::make_shared<CaptionArgs>();
  app.add_option("images", a->images, "Image files, or one video file or camera (/dev/videoN)")->required();
  add_caption_options(app, a->c, {"model", "beam", "greedy", "max_len", "sample_glimpses", "seed", "device", "every"});
  app.add_flag("--json", a->json, "Print per-word alpha (grid HxW), beta and log-probability as JSON (a video: one line per frame)");
  return [a]() -> int {
    for (const auto& path : a->images) {
      if (!is_video_path(path)) continue;
      if (a->images.size() > 1) throw std::invalid_argument(path + " is a video: caption one video at a time, without images");
      return caption_video(path, a->c, a->json);
    }
    Captioner captioner(a->c.model, a->c.device);
    const auto opts = a->c.options();
    if (opts.sample_glimpses && captioner.config().attention != AttentionKind::Hard) {
      std::cerr << "fovea: note: --sample-glimpses applies to hard models; this soft model shows its expected alpha\n";
    }
    int failures = 0;
    nlohmann::json all = nlohmann::json::array();
    for (const auto& path : a->images) {
      try {
        const auto result = captioner.caption(read_image(path), opts);
        if (result.familiarity && !result.familiarity->familiar())
          std::cerr << "fovea: warning: " << path << " is unlike the images "
                    << model_display_name(captioner.path()) << " was trained on (distance "
                    << result.familiarity->distance << ", limit " << result.familiarity->threshold
                    << "): its caption is unreliable\n";
        if (a->json) {
          auto j = to_json(result);
          j["image"] = path;
          all.push_back(j);
        } else {
          std::cout << path << "\t" << result.text() << (result.finished ? "" : " (no <end> within the length limit)") << "\n";
        }
      } catch (const std::exception& e) {
        std::cerr << "fovea: error: " << e.what() << "\n";
        ++failures;
      }
    }
    if (a->json) std::cout << all.dump(1) << "\n";
    return failures ? 1 : 0;
  };
}

Runner add_info_command(CLI::App& app) {
  auto model = std::make_shared<std::string>(default_model_path());
  app.add_option("model", *model, "Model file (default: $FOVEA_MODEL, else the shipped soft model)");
  return [model]() -> int {
    if (is_encoder_file(*model)) {
      // An encoder file (fovea pretrain-encoder) is no captioning model, but info can say what it is.
      const EncoderFileInfo e = read_encoder_file_info(*model);
      const nlohmann::json j = {{"path", *model},
                                {"kind", "encoder file: the built-in CNN, for fovea train --backbone"},
                                {"encoder_widths", e.widths},
                                {"encoder_strides", e.strides},
                                {"centred_cells", e.centred_cells},
                                {"image_size", e.image_size},
                                {"pretraining", e.pretraining},
                                {"description", describe_backbone(*model)}};
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    Captioner captioner(*model, "cpu");
    std::cout << captioner.info().dump(2) << "\n";
    return 0;
  };
}

}  // namespace fovea::cli
