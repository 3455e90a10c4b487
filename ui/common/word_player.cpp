#include "ui/common/word_player.h"

#include <algorithm>
#include <cstdlib>

namespace fovea::ui {

WordPlayer::WordPlayer(QObject* parent) : QObject(parent) {
  timer_.setSingleShot(true);
  connect(&timer_, &QTimer::timeout, this, &WordPlayer::tick);
}

int WordPlayer::interval() const {
  const int base = int(1000.0 / wps_);
  return current_ == count_ - 1 ? base * 3 : base;  // hold the last word before looping
}

int word_to_keep(const QStringList& before, int current, const QStringList& after) {
  if (after.isEmpty()) return -1;
  if (current < 0) return 0;
  int best = -1;
  if (current < before.size()) {
    for (int i = 0; i < after.size(); ++i) {
      if (after[i] == before[current] && (best < 0 || std::abs(i - current) < std::abs(best - current))) best = i;
    }
  }
  return best >= 0 ? best : std::min(current, int(after.size()) - 1);
}

void WordPlayer::setCount(int words) {
  count_ = std::max(0, words);
  current_ = count_ > 0 ? 0 : -1;
  Q_EMIT currentChanged(current_);
  if (count_ == 0) pause();
  else if (isPlaying()) timer_.start(interval());
}

void WordPlayer::setWordsPerSecond(double wps) { wps_ = std::clamp(wps, 0.25, 30.0); }

void WordPlayer::setCurrent(int index) {
  if (count_ == 0) return;
  index = std::clamp(index, 0, count_ - 1);
  if (index == current_) return;
  current_ = index;
  Q_EMIT currentChanged(current_);
}

void WordPlayer::play() {
  if (count_ == 0 || isPlaying()) return;
  timer_.start(interval());
  Q_EMIT playingChanged(true);
}

void WordPlayer::pause() {
  if (!isPlaying()) return;
  timer_.stop();
  Q_EMIT playingChanged(false);
}

void WordPlayer::toggle() { isPlaying() ? pause() : play(); }

void WordPlayer::stepForward() {
  pause();
  if (count_ > 0) setCurrent(current_ + 1 < count_ ? current_ + 1 : 0);
}

void WordPlayer::stepBack() {
  pause();
  if (count_ > 0) setCurrent(current_ > 0 ? current_ - 1 : count_ - 1);
}

void WordPlayer::tick() {
  if (count_ == 0) return;
  current_ = (current_ + 1) % count_;
  Q_EMIT currentChanged(current_);
  timer_.start(interval());
}

}  // namespace fovea::ui
