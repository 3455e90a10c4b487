#include "app/cli/progress_bar.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace fovea::cli {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%02ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

ProgressBar::ProgressBar() : tty_(isatty(STDERR_FILENO) != 0) {}

void ProgressBar::update(const std::string& phase, std::int64_t step, std::int64_t total, double loss, double tps,
                         double eta) {
  const double frac = total > 0 ? double(step) / double(total) : 0;
  char speed[32] = "";
  if (tps > 0) std::snprintf(speed, sizeof speed, " | %.0f tok/s", tps);
  if (tty_) {
    const int width = 24, filled = int(frac * width);
    std::string bar(std::size_t(filled), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r[%s] %s step %lld/%lld (%5.1f%%) | loss %.4f%s | ETA %s   ", bar.c_str(), phase.c_str(),
                 (long long)step, (long long)total, 100 * frac, loss, speed, format_duration(eta).c_str());
    drawn_ = true;
  } else if (step == total || step < last_printed_step_ || step - last_printed_step_ >= 50) {
    std::fprintf(stderr, "%s step %lld/%lld (%.1f%%) loss %.4f%s ETA %s\n", phase.c_str(), (long long)step,
                 (long long)total, 100 * frac, loss, speed, format_duration(eta).c_str());
    last_printed_step_ = step;
  }
  std::fflush(stderr);
}

void ProgressBar::update_count(const std::string& what, std::int64_t done, std::int64_t total, const std::string& unit,
                               double per_s, double eta) {
  const double frac = total > 0 ? double(done) / double(total) : 0;
  char speed[48] = "";
  if (per_s > 0) std::snprintf(speed, sizeof speed, " | %.1f %s/s", per_s, unit.c_str());
  if (tty_) {
    const int width = 24, filled = int(frac * width);
    std::string bar(std::size_t(filled), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r[%s] %s %lld/%lld (%5.1f%%)%s | ETA %s   ", bar.c_str(), what.c_str(), (long long)done,
                 (long long)total, 100 * frac, speed, format_duration(eta).c_str());
    drawn_ = true;
  } else if (done == total || done < last_printed_step_ || double(done - last_printed_step_) >= 0.05 * double(total)) {
    std::fprintf(stderr, "%s %lld/%lld (%.1f%%)%s ETA %s\n", what.c_str(), (long long)done, (long long)total, 100 * frac,
                 speed, format_duration(eta).c_str());
    last_printed_step_ = done;
  }
  std::fflush(stderr);
}

void ProgressBar::message(const std::string& text) {
  if (drawn_) std::fputs("\r\033[K", stderr);
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
}

}  // namespace fovea::cli
