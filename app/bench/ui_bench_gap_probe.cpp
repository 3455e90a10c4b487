#include "app/bench/ui_bench_gap_probe.h"

#include <algorithm>
#include <ctime>

namespace fovea::ui_bench {

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
}

GapProbe::GapProbe() {
  timer_.setTimerType(Qt::PreciseTimer);
  timer_.setInterval(1);
  QObject::connect(&timer_, &QTimer::timeout, [this] {
    const qint64 now = clock_.nsecsElapsed();
    const double cpu = thread_cpu_ms();
    if (current_) {
      current_->blocked_ms.push_back(std::max(0.0, double(now - last_wall_ns_) / 1e6 - 1.0));
      current_->busy_ms.push_back(std::max(0.0, cpu - last_cpu_ms_));
    }
    last_wall_ns_ = now;
    last_cpu_ms_ = cpu;
  });
  enter("all");
}

void GapProbe::start() {
  clock_.start();
  last_wall_ns_ = 0;
  last_cpu_ms_ = thread_cpu_ms();
  timer_.start();
}

void GapProbe::stop() { timer_.stop(); }

GapProbe::Phase& GapProbe::phase(const std::string& name) {
  for (auto& [n, p] : phases_) {
    if (n == name) return p;
  }
  phases_.emplace_back(name, Phase{});
  return phases_.back().second;
}

void GapProbe::enter(const std::string& name) { current_ = &phase(name); }

void GapProbe::clear() {
  for (auto& [n, p] : phases_) p = Phase{};
}

nlohmann::json GapProbe::report() const {
  nlohmann::json j = nlohmann::json::object();
  std::vector<double> blocked, busy;
  for (const auto& [name, p] : phases_) {
    if (p.blocked_ms.empty()) continue;
    blocked.insert(blocked.end(), p.blocked_ms.begin(), p.blocked_ms.end());
    busy.insert(busy.end(), p.busy_ms.begin(), p.busy_ms.end());
    if (phases_.size() > 1) {
      j[name + "_max_blocked_ms"] = percentile(p.blocked_ms, 1.0);
      j[name + "_max_busy_ms"] = percentile(p.busy_ms, 1.0);
    }
  }
  j["ticks"] = blocked.size();
  j["max_blocked_ms"] = percentile(blocked, 1.0);
  j["p99_blocked_ms"] = percentile(blocked, 0.99);
  j["median_blocked_ms"] = percentile(blocked, 0.5);
  j["max_busy_ms"] = percentile(busy, 1.0);
  return j;
}

}  // namespace fovea::ui_bench
