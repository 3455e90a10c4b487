// fovea embed-backbone: puts the TorchScript backbone into a model file written before model files
// held it (they name its path only), so the model opens anywhere (core/decode/embed_backbone.h).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "app/cli/commands.h"
#include "core/decode/embed_backbone.h"

namespace fovea::cli {

Runner add_embed_backbone_command(CLI::App& app) {
  auto model = std::make_shared<std::string>();
  auto backbone = std::make_shared<std::string>();
  app.add_option("model", *model, "Model file to rewrite (best.ckpt, a model written before files held their backbone)")
      ->required();
  app.add_option("backbone", *backbone, "The TorchScript backbone it was trained with (--backbone FILE)")->required();
  return [model, backbone]() -> int {
    const auto b = embed_backbone(*model, *backbone);
    std::printf("%s: holds its backbone %s (%s), %s MB; it opens anywhere now\n", model->c_str(),
                b.value("file", std::string()).c_str(), b.value("digest", std::string()).c_str(),
                std::to_string(b.value("bytes", 0ULL) / 1000000).c_str());
    return 0;
  };
}

}  // namespace fovea::cli
