#include "ui/training/run_summary.h"

#include <QFileInfo>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/io/checkpoint_header.h"
#include "core/train/run_log.h"
#include "core/train/train_records.h"

namespace fovea::ui {

namespace fs = std::filesystem;

QString RunSummary::name() const { return QFileInfo(dir).fileName(); }

QString best_validation_text(const fovea::BestValidation& best) {
  if (best.metric.empty()) return {};
  return QStringLiteral(" · %1 %2").arg(QString::fromStdString(best.metric)).arg(best.score, 0, 'f', 3);
}

namespace {

/// The config.json (or, for older runs, last.ckpt's header) of a run.
bool read_config(const std::string& dir, fovea::TrainConfig& config) {
  try {
    if (fs::exists(fovea::config_path(dir))) {
      std::ifstream in(fovea::config_path(dir));
      config = fovea::train_config_from_json(nlohmann::json::parse(in));
      return true;
    }
    if (fs::exists(fovea::last_checkpoint_path(dir))) {
      config = fovea::train_config_from_json(fovea::read_checkpoint_header(fovea::last_checkpoint_path(dir)).at("training").at("config"));
      return true;
    }
  } catch (const std::exception&) {
  }
  return false;
}

std::int64_t mtime(const std::string& path) {
  std::error_code ec;
  const auto t = fs::last_write_time(path, ec);
  return ec ? -1 : std::int64_t(t.time_since_epoch().count());
}

/// Folds whole lines of metrics.jsonl into `s`: the validation and pretraining lines are parsed
/// whole; of the many step lines, only the last one.
void add_records(std::string_view lines, RunSummary& s) {
  std::string_view last_train;
  std::size_t from = 0;
  while (from < lines.size()) {
    const auto to = lines.find('\n', from);
    const std::string_view line = lines.substr(from, to - from);
    from = to + 1;
    if (line.find("\"val\"") != std::string_view::npos || line.find("\"pretrain\"") != std::string_view::npos) {
      try {
        const auto j = nlohmann::json::parse(line);
        const auto kind = j.value("kind", std::string());
        if (kind == "val") {
          const auto v = fovea::validation_record_from_json(j);
          s.best.add(v);
          s.last_step = std::max(s.last_step, v.step);
        } else if (kind == "pretrain") {
          const auto p = fovea::pretrain_record_from_json(j);
          s.pretrain_step = p.pretrain_step;
          s.pretrain_elapsed_s = p.elapsed_s;
        }
      } catch (const nlohmann::json::exception&) {
        // a damaged line tells nothing
      }
    } else if (line.find("\"train\"") != std::string_view::npos) {
      last_train = line;
    }
  }
  if (last_train.empty()) return;
  try {
    const auto r = fovea::train_record_from_json(nlohmann::json::parse(last_train));
    s.train_step = r.step;
    s.train_elapsed_s = r.elapsed_s;
    s.last_step = std::max(s.last_step, r.step);
    if (!s.has_config) s.hard = r.hard;
  } catch (const nlohmann::json::exception&) {
  }
}

/// Reads what `metrics` gained between `offset` and `size` bytes into `s`; returns the bytes
/// consumed: whole lines only (a last line without its newline is still being written).
std::int64_t read_appended(const std::string& metrics, std::int64_t offset, std::int64_t size, RunSummary& s) {
  std::ifstream in(metrics, std::ios::binary);
  in.seekg(offset);
  std::string chunk(std::size_t(size - offset), '\0');
  in.read(chunk.data(), std::streamsize(chunk.size()));
  chunk.resize(std::size_t(in.gcount()));
  const auto end = chunk.rfind('\n');
  if (end == std::string::npos) return 0;
  add_records(std::string_view(chunk.data(), end + 1), s);
  return std::int64_t(end + 1);
}

/// Whether the run in `d` finished (its model card is written) or failed (failed.json, with its error).
void read_outcome(const std::string& d, RunSummary& s) {
  std::error_code ec;
  s.finished = fs::exists(fovea::model_card_path(d), ec);
  s.failed = false;
  s.failure.clear();
  if (s.finished || !fs::exists(fovea::failure_path(d), ec)) return;
  s.failed = true;
  try {
    std::ifstream in(fovea::failure_path(d));
    s.failure = QString::fromStdString(nlohmann::json::parse(in).value("error", std::string()));
  } catch (const nlohmann::json::exception&) {
  }
}

}  // namespace

RunSummary RunSummaryReader::update(const QString& dir) {
  const std::string d = dir.toStdString();
  const std::string metrics = fovea::metrics_path(d);
  State& st = states_[dir];
  std::error_code ec;
  const auto size = std::int64_t(fs::file_size(metrics, ec));
  if (ec) {
    st = State{};
    st.summary.dir = dir;
    st.summary.error = QObject::tr("%1: not a training run folder (no metrics.jsonl)").arg(dir);
    return st.summary;
  }
  if (size < st.offset || !st.summary.readable) {  // new, or cut back by a resumed run: from the start
    st = State{};
    st.summary.dir = dir;
    st.summary.readable = true;
    st.summary.has_config = read_config(d, st.summary.config);
  }
  RunSummary& s = st.summary;
  s.bytes_read = size > st.offset ? read_appended(metrics, st.offset, size, s) : 0;
  st.offset += s.bytes_read;
  if (s.has_config) s.hard = s.config.model.attention == fovea::AttentionKind::Hard;
  s.has_last_checkpoint = fs::exists(fovea::last_checkpoint_path(d), ec);
  s.has_best_checkpoint = fs::exists(fovea::best_checkpoint_path(d), ec);
  if (s.has_last_checkpoint) {
    const auto t = mtime(fovea::last_checkpoint_path(d));
    if (t != st.ckpt_mtime) {  // the header is read again only when the checkpoint changed
      st.ckpt_mtime = t;
      st.checkpoint_step = -1;
      try {
        st.checkpoint_step =
            fovea::read_checkpoint_header(fovea::last_checkpoint_path(d)).at("training").at("step").get<std::int64_t>();
      } catch (const std::exception&) {
      }
    }
    s.last_step = std::max(s.last_step, st.checkpoint_step);
  }
  read_outcome(d, s);
  return s;
}

}  // namespace fovea::ui
