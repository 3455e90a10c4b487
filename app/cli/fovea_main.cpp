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

namespace fovea::cli {
namespace {
/// A subcommand: its name, what adds its options, and what `fovea --help` says of it.
struct Command {
  const char* name;
  Runner (*add)(CLI::App&);
  const char* help;
};

const Command kCommands[] = {
    {"train", add_train_command,
     "Train a soft- or hard-attention model"},
    {"pretrain-encoder", add_pretrain_encoder_command,
     "Pretrain the built-in CNN on single Fashion-MNIST items: the encoder fovea train starts from"},
    {"features", add_features_command,
     "Compute a dataset's annotations once, ahead of training with an encoder that does not train"},
    {"caption", add_caption_command,
     "Caption images, optionally with per-word attention as JSON"},
    {"eval", add_eval_command,
     "Score a model on the built-in scenes or a dataset on disk: BLEU, CIDEr-D and attention grounding"},
    {"score", add_score_command,
     "coco-caption metrics (BLEU, ROUGE-L, CIDEr-D) of a results file"},
    {"probe", add_probe_command,
     "The next word with attention forced onto a region: does the model name what is there?"},
    {"take-away", add_take_away_command,
     "Remove what a word's attention points at (and a control region): does the word go?"},
    {"export", add_export_command,
     "Annotated figure (PNG/SVG/PDF) and animation frames of a caption"},
    {"bench", add_bench_command,
     "Speed figures as JSON lines (decoder training step, beam search, overlay, ...)"},
    {"info", add_info_command,
     "Describe a model file"},
    {"familiarity", add_familiarity_command,
     "Measure a model's training images and keep their statistics in the model file"},
    {"embed-backbone", add_embed_backbone_command,
     "Put the TorchScript backbone into a model file that names only its path, so it opens anywhere"},
    {"data", add_data_command,
     "Write sample scenes of the built-in dataset as PNG files with captions"},
};
}  // namespace
}  // namespace fovea::cli

int main(int argc, char** argv) {
  fovea::prepare_process(argc, argv);
  // A reader that went away (`fovea train ... | head`) costs the output, not the run: writes to
  // it fail quietly instead of killing the process before its checkpoint.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"fovea: image captioning with visual attention (Show, Attend and Tell)", "fovea"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fovea " FOVEA_VERSION);
  std::map<CLI::App*, fovea::cli::Runner> runners;
  for (const auto& c : fovea::cli::kCommands) {
    auto* sub = app.add_subcommand(c.name, c.help);
    runners[sub] = c.add(*sub);
  }
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
