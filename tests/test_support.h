#pragma once
// Shared helpers for the core tests: a tiny model configuration that trains in seconds.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/datasets/fashion_mnist.h"
#include "core/model/show_attend_tell.h"
#include "core/train/run_log.h"
#include "core/train/train_config.h"

namespace fovea::test {

inline bool have_fashion_mnist() {
  return std::filesystem::exists(std::string(kFashionMnistDir) + "/t10k-images-idx3-ubyte.gz");
}

#define FOVEA_REQUIRE_FASHION_MNIST()                                                   \
  if (!::fovea::test::have_fashion_mnist()) GTEST_SKIP() << "dataset-fashion-mnist is not installed"

/// A fresh, empty temporary folder, removed with the object.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() / ("fovea-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

/// 32x32 images -> 4x4 grid, small layers: trains in seconds on a CPU.
inline ModelConfig tiny_model(AttentionKind kind = AttentionKind::Soft) {
  ModelConfig c;
  c.attention = kind;
  c.image_size = 32;
  c.encoder_widths = {8, 16, 32};
  c.encoder_strides = {2, 2, 2};
  c.embed_dim = 16;
  c.attention_dim = 16;
  c.hidden_dim = 48;
  c.dropout = 0.0;
  c.max_caption_len = 12;
  return c;
}

inline TrainConfig tiny_training(const std::string& out_dir, AttentionKind kind = AttentionKind::Soft) {
  TrainConfig t;
  t.model = tiny_model(kind);
  t.scenes.image_size = 32;
  t.scenes.min_objects = 1;
  t.scenes.max_objects = 1;
  t.scenes.fresh_every_epoch = false;  // the tests learn these 32 scenes
  t.scenes.mirror_items = false;       // ... as they are (not settings: resume such runs with make_train_data(t))
  t.train_scenes = 32;
  t.val_scenes = 16;
  t.batch_size = 16;
  t.lr = 1e-2;
  t.lr_decay = 1.0;  // tiny epochs of two steps: no per-epoch decay
  t.epochs = 1000;
  t.max_steps = 300;
  t.pretrain_steps = 0;  // captioning steps alone (Training.PretrainsTheEncoder... turns it on)
  t.patience = 1000;
  t.device = "cpu";
  t.precision = "fp32";  // the same numerics on every machine (auto may pick bf16, by this CPU's times)
  t.out_dir = out_dir;
  return t;
}

/// A run's metrics.jsonl, one JSON object per line.
inline std::vector<nlohmann::json> read_metrics(const std::string& run) {
  std::vector<nlohmann::json> out;
  std::ifstream in(metrics_path(run));
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

/// The message of the exception `f` throws (a test failure when it throws none).
/// A named pipe at `path` for as long as the object lives. Should code under test block opening
/// it for reading (the fault these tests guard against), a writer that opens and closes it at
/// once lets the reader go on to end of file, so the test fails rather than hangs.
struct NamedPipe {
  std::string path;
  std::atomic<bool> done{false};
  std::thread unblock;
  explicit NamedPipe(std::string p) : path(std::move(p)) {
    if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error(path + ": mkfifo failed");
    unblock = std::thread([this] {
      while (!done) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) ::close(fd);
        std::this_thread::yield();
      }
    });
  }
  ~NamedPipe() {
    done = true;
    unblock.join();
  }
};

inline std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return "";
}

/// A small random vocabulary for tests that do not train.
inline Vocabulary test_vocab(int words = 10) {
  std::vector<std::string> w = {"<pad>", "<start>", "<end>", "<unk>"};
  for (int i = 0; i < words; ++i) w.push_back("w" + std::to_string(i));
  return Vocabulary(w);
}

}  // namespace fovea::test
