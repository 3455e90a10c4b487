// fovea: the command-line tool (train, caption, data, info). Thin: parse, wire, run core/.
#include <csignal>
#include <CLI/CLI.hpp>
#include <c10/util/Exception.h>

#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/io/atomic_file.h"
#include "core/runtime/error_text.h"
#include "core/runtime/process_startup.h"
#include "core/runtime/runtime.h"

namespace {

/// Says `message` on stderr and, under torchrun, also in the error file its agent reads
/// (TORCHELASTIC_ERROR_FILE, in PyTorch's own layout), so that torchrun's "Root Cause" gives this
/// process's reason instead of nothing.
int fail(std::string message) {
  // A model the user never typed: say where its path came from.
  if (const char* env = std::getenv("FOVEA_MODEL"); env != nullptr && *env != '\0' &&
                                                      message.rfind(std::string(env) + ": ", 0) == 0) {
    message += " (the model $FOVEA_MODEL names; unset it for the shipped model)";
  }
  std::cerr << "fovea: error: " << message << "\n";
  if (const char* file = std::getenv("TORCHELASTIC_ERROR_FILE"); file != nullptr && *file != '\0') {
    const nlohmann::json record = {
        {"message",
         {{"message", "fovea: " + message},
          {"extraInfo", {{"py_callstack", "fovea: " + message}, {"timestamp", std::to_string(std::time(nullptr))}}}}}};
    try {
      fovea::write_file_atomically(file, record.dump());
    } catch (const std::exception&) {  // the message is on stderr all the same
    }
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  fovea::prepare_process(argc, argv);
  // A reader that went away (`fovea train ... | head`) costs the output, not the run: writes to
  // it fail quietly instead of killing the process before its checkpoint.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"fovea: image captioning with visual attention (Show, Attend and Tell)", "fovea"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fovea " FOVEA_VERSION);
  std::map<CLI::App*, fovea::cli::Runner> runners;
  auto add = [&](const char* name, const char* help, fovea::cli::Runner (*fn)(CLI::App&)) {
    auto* sub = app.add_subcommand(name, help);
    runners[sub] = fn(*sub);
  };
  add("train", "Train a soft- or hard-attention model", fovea::cli::add_train_command);
  add("pretrain-encoder", "Pretrain the built-in CNN on single Fashion-MNIST items: the encoder fovea train starts from",
      fovea::cli::add_pretrain_encoder_command);
  add("features", "Compute a dataset's annotations once, ahead of training with an encoder that does not train",
      fovea::cli::add_features_command);
  add("caption", "Caption images, optionally with per-word attention as JSON", fovea::cli::add_caption_command);
  add("eval", "Score a model on the built-in scenes or a dataset on disk: BLEU, CIDEr-D and attention grounding", fovea::cli::add_eval_command);
  add("score", "coco-caption metrics (BLEU, ROUGE-L, CIDEr-D) of a results file", fovea::cli::add_score_command);
  add("probe", "The next word with attention forced onto a region: does the model name what is there?",
      fovea::cli::add_probe_command);
  add("take-away", "Remove what a word's attention points at (and a control region): does the word go?",
      fovea::cli::add_take_away_command);
  add("export", "Annotated figure (PNG/SVG/PDF) and animation frames of a caption", fovea::cli::add_export_command);
  add("bench", "Speed figures as JSON lines (decoder training step, beam search, overlay, ...)", fovea::cli::add_bench_command);
  add("info", "Describe a model file", fovea::cli::add_info_command);
  add("familiarity", "Measure a model's training images and keep their statistics in the model file",
      fovea::cli::add_familiarity_command);
  add("embed-backbone", "Put the TorchScript backbone into a model file that names only its path, so it opens anywhere",
      fovea::cli::add_embed_backbone_command);
  add("data", "Write sample scenes of the built-in dataset as PNG files with captions", fovea::cli::add_data_command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& [sub, run] : runners) {
      if (sub->parsed()) return run();
    }
  } catch (const std::filesystem::filesystem_error& e) {
    // The path and the system's reason, without the library's wording ("filesystem error: cannot
    // create directories: Not a directory [out/x]").
    return fail(e.path1().string() + ": " + e.code().message());
  } catch (const c10::Error& e) {
    // LibTorch's own errors: their reason, without the C++ backtrace what() appends.
    return fail(e.what_without_backtrace());
  } catch (const std::bad_alloc&) {
    return fail("out of memory (a size or count too large for this machine?)");
  } catch (const std::exception& e) {
    return fail(fovea::error_text(e));
  }
  return 0;
}
