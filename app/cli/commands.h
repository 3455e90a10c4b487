#pragma once
/// The `fovea` subcommands. Each registers its options on the CLI11 app and returns the
/// function that runs it (exit code).
#include <functional>
#include <memory>

namespace CLI {
class App;
}

namespace fovea::cli {

using Runner = std::function<int()>;

Runner add_train_command(CLI::App& app);
Runner add_pretrain_encoder_command(CLI::App& app);
Runner add_features_command(CLI::App& app);
Runner add_caption_command(CLI::App& app);
Runner add_info_command(CLI::App& app);
Runner add_data_command(CLI::App& app);
Runner add_eval_command(CLI::App& app);
Runner add_score_command(CLI::App& app);
Runner add_export_command(CLI::App& app);
Runner add_probe_command(CLI::App& app);
Runner add_take_away_command(CLI::App& app);
Runner add_familiarity_command(CLI::App& app);
Runner add_embed_backbone_command(CLI::App& app);
Runner add_bench_command(CLI::App& app);

}  // namespace fovea::cli
