#pragma once
/// The `fovea` subcommands. Each registers its options on the CLI11 app and returns the
/// function that runs it (exit code).
#include <functional>
#include <memory>
#include <optional>

namespace CLI {
class App;
}

namespace fovea::cli {

using Runner = std::function<int()>;

Runner add_train_command(CLI::App& app);
Runner add_caption_command(CLI::App& app);
Runner add_info_command(CLI::App& app);
Runner add_data_command(CLI::App& app);
Runner add_eval_command(CLI::App& app);
Runner add_score_command(CLI::App& app);
Runner add_export_command(CLI::App& app);
Runner add_bench_command(CLI::App& app);

/// How captions read class nouns: --mirror-nouns / --no-mirror-nouns (CaptionOptions::mirror_nouns),
/// --cut-out-nouns / --no-cut-out-nouns (CaptionOptions::cut_out_nouns), --cut-out-weight and --cut-out-shift;
/// unset: the model's defaults.
struct NounReadingArgs {
  std::optional<bool> mirror, cut_outs;
  std::optional<double> cut_out_weight;
  std::optional<int> cut_out_shift;
};
void add_noun_reading_flags(CLI::App& app, std::shared_ptr<NounReadingArgs> args);

}  // namespace fovea::cli
