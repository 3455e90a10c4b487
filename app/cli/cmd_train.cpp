// fovea train: the CLI face of core/train/trainer.h.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include <filesystem>
#include <iostream>

#include "app/cli/commands.h"
#include "core/runtime/error_text.h"
#include "core/runtime/process_startup.h"
#include "app/cli/progress_bar.h"
#include "app/cli/stop_signal.h"
#include "core/model/checkpoint.h"
#include "core/train/data_parallel.h"
#include "launch/local_processes.h"
#include "core/train/process_group.h"
#include "core/train/train_settings.h"
#include "core/train/nonfinite.h"
#include "core/train/run_lock.h"
#include "core/train/trainer.h"
#include "core/train/training_job.h"

namespace fovea::cli {

namespace {

struct TrainArgs {
  TrainConfig config = recommended_train_config();
  std::string resume;
  bool paper = false;
  int processes = 1;
};

/// This command's arguments without --processes (its value too), for the processes it starts.
std::vector<std::string> arguments_without_processes() {
  std::vector<std::string> out;
  const auto& in = process_arguments();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == "--processes") {
      ++i;
      continue;
    }
    if (in[i].rfind("--processes=", 0) == 0) continue;
    out.push_back(in[i]);
  }
  return out;
}

int run_processes(int processes, const TrainConfig& config, bool resuming) {
  if (process_group_environment()) {
    throw std::invalid_argument("--processes starts its own group: leave it out under torchrun (or WORLD_SIZE set)");
  }
  // Said once here rather than by every process it starts (a resumed run's batch is in its folder).
  if (!resuming) check_batch_divides(config.batch_size, processes);
  const bool creates_folder = !resuming && !config.out_dir.empty() && !std::filesystem::exists(config.out_dir);
  const auto r = run_local_group(processes, "/proc/self/exe", arguments_without_processes());
  // A process killed while the run started cannot clean up after itself: a folder this run created
  // that holds no run (no metrics.jsonl, only the folder's lock) goes, as a one-process run's does;
  // one that holds no checkpoint yet says in failed.json what happened.
  std::error_code ec;
  const bool died = r.exit_code != 0 && r.exit_code != 1 && r.exit_code != 130;
  if (r.exit_code != 0 && creates_folder && !std::filesystem::exists(metrics_path(config.out_dir), ec)) {
    std::filesystem::remove_all(config.out_dir, ec);
  } else if (died && creates_folder && !std::filesystem::exists(last_checkpoint_path(config.out_dir), ec) &&
             !std::filesystem::exists(failure_path(config.out_dir), ec)) {
    try {
      record_run_failure(config.out_dir, r.failure);
    } catch (const std::exception&) {
      // A folder that cannot be written to: the launcher's line below still says what happened.
    }
  }
  // Exit status 1: the process said what went wrong itself ("fovea: error: ..."); 130: it was
  // stopped as asked. Anything else (a signal, a crash) only the launcher can name.
  if (r.exit_code != 0 && r.exit_code != 1 && r.exit_code != 130) std::cerr << "fovea: error: " << r.failure << "\n";
  return r.exit_code;
}

/// Adds train_settings()'s row `s` as an option (a flag pair for yes/no settings) that writes
/// into `config`.
void add_setting_option(CLI::App& app, const TrainSetting& s, TrainConfig& config) {
  const auto value = s.get(config);
  std::string help = s.help;
  CLI::Option* o = nullptr;
  if (std::holds_alternative<bool>(value)) {
    const std::string name = s.cli_name().substr(2);
    o = app.add_flag_function("--" + name + ",!--no-" + name,
                              [&s, &config](std::int64_t n) { s.set(config, n > 0); }, help);
    o->description(help + (std::get<bool>(value) ? " [on]" : " [off]"));
  } else {
    o = app.add_option_function<std::string>(
        s.cli_name(),
        [&s, &config](const std::string& text) {
          try {
            s.set(config, parse_setting(s, text));
          } catch (const std::invalid_argument& e) {
            // Reported as a usage error, which CLI11 opens with the option's name: said once.
            std::string why = e.what();
            if (why.rfind(s.cli_name() + ": ", 0) == 0) why.erase(0, s.cli_name().size() + 2);
            throw CLI::ValidationError(s.cli_name(), why);
          }
        },
        help);
    o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // given twice: the last one counts
    if (!s.choices.empty()) o->check(CLI::IsMember(s.choices));
    const auto shown = format_setting(value);
    if (!shown.empty()) o->default_str(shown);
    o->type_name(std::holds_alternative<std::string>(value) ? "TEXT"
                 : std::holds_alternative<std::vector<std::int64_t>>(value) ? "N,N,..."
                                                                              : "NUMBER");
  }
  o->group(s.group);
}

/// The settings given on the command line (and those --paper set), for a resumed run to check
/// against its own.
std::map<std::string, SettingValue> given_settings(const CLI::App& app, const TrainConfig& config, const TrainConfig& before_paper) {
  std::map<std::string, SettingValue> given;
  for (const auto& s : train_settings()) {
    const CLI::Option* o = app.get_option_no_throw(s.cli_name());
    if ((o != nullptr && o->count() > 0) || s.get(config) != s.get(before_paper)) given[s.key] = s.get(config);
  }
  return given;
}

/// What the run's first process reports: the progress bar (annotations, encoder pretraining,
/// then the epochs), messages, and each validation's scores.
TrainCallbacks reporting_callbacks(ProgressBar& bar) {
  TrainCallbacks cb;
  cb.on_progress = [&bar](const TrainProgress& p) {
    if (p.step == 0 && p.features_done < p.features_total) {  // the annotations, computed once before step 1
      bar.update_count("annotations", p.features_done, p.features_total, "images", 0, p.eta_s);
    } else if (p.step == 0 && p.pretrain_steps > 0) {  // the encoder pretraining, before captioning step 1
      bar.update("encoder pretraining", p.pretrain_step, p.pretrain_steps, p.loss, 0, p.eta_s);
    } else {
      bar.update("epoch " + std::to_string(p.epoch) + "/" + std::to_string(p.epochs), p.step, p.total_steps, p.loss,
                 p.tokens_per_s, p.eta_s);
    }
  };
  cb.on_message = [&bar](const std::string& m) { bar.message(m); };
  cb.on_validation = [&bar](const ValidationRecord& v) {
    char line[256];
    std::snprintf(line, sizeof line, "validation after epoch %lld: BLEU-1 %.3f BLEU-4 %.3f CIDEr-D %.3f", (long long)v.epoch,
                  v.bleu[0], v.bleu[3], v.cider);
    std::string text = line;
    if (v.has_grounding) {
      std::snprintf(line, sizeof line, ", phrase pointing %.1f%%, alpha in box %.1f%%, absent nouns %.2f%%",
                    100 * v.pointing, 100 * v.alpha_in_box, 100 * v.absent_nouns);
      text += line;
    }
    if (v.has_faithfulness) {
      std::snprintf(line, sizeof line, ", faithful nouns %.0f%% (p falls %.0f%% with the attended cells removed, %.0f%% with others)",
                    100 * v.faithful_rate, 100 * v.attended_drop, 100 * v.control_drop);
      text += line;
    }
    if (v.improved) text += " (" + improvement_note(v) + ", saved best.ckpt)";
    bar.message(text);
  };
  return cb;
}

/// How the run ended, its best checkpoint and the checkpoint files, on stderr.
void print_summary(const TrainResult& r) {
  // Only the files there: a run stopped before its first validation has no best.ckpt (nor score) yet.
  const auto there = [](const std::string& p) { return !p.empty() && std::filesystem::exists(p); };
  char best[160] = "; not validated yet";
  if (there(r.best_checkpoint))
    std::snprintf(best, sizeof best, "; best.ckpt from step %lld (%s%s %.4f)", (long long)r.best_step,
                  r.best_metric == "validation NLL" ? "" : "validation ", r.best_metric.c_str(), r.best_score);
  std::fprintf(stderr, "%s after %lld steps in %s%s\n",
               r.interrupted ? "interrupted" : (r.stopped_early ? "stopped early" : "finished"), (long long)r.steps,
               format_duration(r.elapsed_s).c_str(), best);
  if (there(r.last_checkpoint) && there(r.best_checkpoint)) {
    std::fprintf(stderr, "checkpoints: %s, %s\n", r.last_checkpoint.c_str(), r.best_checkpoint.c_str());
  } else if (there(r.last_checkpoint)) {
    std::fprintf(stderr, "checkpoint: %s (no best.ckpt yet: it is written at the first validation)\n", r.last_checkpoint.c_str());
  }
}

}  // namespace

Runner add_train_command(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  app.add_option("--resume", a->resume, "Continue the interrupted run in this folder from its last checkpoint")->group("Run");
  app.add_flag("--paper", a->paper,
               "The paper's exact objective: no auxiliary loss, encoder pretraining or attention supervision, h0/c0 "
               "from the mean annotation, penalty summed over cells (overrides those settings; the encoder still "
               "starts from --backbone, as the paper's from a pretrained VGG)")
      ->group("Run");
  app.add_option("--processes", a->processes,
                 "Train with N processes on this machine, each on its share of every batch (--batch stays the "
                 "whole batch; it must divide by N). Without it, `torchrun --no_python --nproc_per_node N fovea train "
                 "...` does the same, on one or more machines")
      ->check(CLI::Range(1, 256))
      ->group("Run");
  for (const auto& s : train_settings()) add_setting_option(app, s, a->config);

  return [a, &app]() -> int {
    if (a->processes > 1) return run_processes(a->processes, a->config, !a->resume.empty());
    const TrainConfig before_paper = a->config;
    if (a->paper) apply_paper_objective(a->config);
    TrainData data;
    if (const auto env = process_group_environment(); env && env->world_size > 1) {
      data.group = std::make_shared<ProcessGroup>(*env, kTrainingCollectiveTimeout, kTrainingJoinTimeout,
                                                  [](const std::string& m) { std::cerr << "fovea: " << m << "\n"; });
    }
    // The first process reports; the others only fail loudly (errors name their process).
    const bool reports = !data.group || data.group->rank() == 0;
    // torchrun restarting a failed group (--max_restarts): go on from the run's last checkpoint.
    const char* restarts = std::getenv("TORCHELASTIC_RESTART_COUNT");
    if (a->resume.empty() && restarts != nullptr && std::atoi(restarts) > 0 && !a->config.out_dir.empty() &&
        std::filesystem::exists(last_checkpoint_path(a->config.out_dir))) {
      a->resume = a->config.out_dir;
    }
    ProgressBar bar;
    TrainCallbacks cb = reports ? reporting_callbacks(bar) : TrainCallbacks{};
    cb.stop = stop_on_interrupt();

    if (a->resume.empty() && a->config.out_dir.empty()) throw std::invalid_argument("--out DIR is required (or --resume DIR)");
    TrainingRequest request;  // a run that fails says so in its folder (fovea-studio lists it as failed, not resumable)
    request.config = a->config;
    request.resume = a->resume;
    if (!a->resume.empty()) request.given = given_settings(app, a->config, before_paper);
    request.records = reports;
    TrainResult r;
    try {
      r = run_training_job(request, cb, data);
    } catch (const TrainingDiverged&) {
      if (!reports) return 1;  // every process stopped at the same step; the first one says why
      throw;
    }
    bar.finish();
    if (reports) print_summary(r);
    return r.interrupted ? 130 : 0;
  };
}

}  // namespace fovea::cli
