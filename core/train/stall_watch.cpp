#include "core/train/stall_watch.h"

#include <cstdlib>

namespace fovea {

StallWatch::StallWatch(std::chrono::seconds after) : after_(after) {
  if (const char* s = std::getenv("FOVEA_STALL_WARNING_S"); s != nullptr && std::atof(s) > 0) {
    after_ = std::chrono::milliseconds(std::int64_t(std::atof(s) * 1000));
  }
}

StallWatch::~StallWatch() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StallWatch::on_stall(std::function<void(const std::string&)> say) {
  std::lock_guard<std::mutex> lock(mutex_);
  say_ = std::move(say);
  if (say_ && !thread_.joinable()) thread_ = std::thread([this] { watch(); });
}

void StallWatch::start(const char* what) {
  std::lock_guard<std::mutex> lock(mutex_);
  what_ = what;
  whole_text_ = false;
  since_ = std::chrono::steady_clock::now();
  said_ = false;
  changed_.notify_all();
}

void StallWatch::start_wait(std::string text) {
  std::lock_guard<std::mutex> lock(mutex_);
  text_ = std::move(text);
  what_ = text_.c_str();
  whole_text_ = true;
  since_ = std::chrono::steady_clock::now();
  said_ = false;
  changed_.notify_all();
}

void StallWatch::end() {
  std::lock_guard<std::mutex> lock(mutex_);
  what_ = nullptr;
}

void StallWatch::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!quit_) {
    if (what_ == nullptr || said_) {
      changed_.wait_for(lock, std::chrono::seconds(1));
      continue;
    }
    const auto due = since_ + after_;
    if (std::chrono::steady_clock::now() < due) {
      changed_.wait_until(lock, due);
      continue;
    }
    said_ = true;
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - since_);
    const std::string message =
        "warning: waiting " + std::to_string(waited.count()) + " s " +
        (whole_text_ ? text_
                                : "for the other processes in " + std::string(what_) +
                                      ": is one of them stopped (SIGSTOP), stuck or much slower? The group gives "
                                      "up when its collective timeout passes");
    auto say = say_;
    lock.unlock();  // the message may take its time (a GUI, a terminal)
    if (say) say(message);
    lock.lock();
  }
}

}  // namespace fovea
