// The runs queued behind the one training (run_queue.h).
#include "ui/training/run_queue.h"

#include <QDir>

namespace fovea::ui {

void RunQueue::add(const fovea::TrainConfig& config, int processes) {
  entries_.append({config, processes});
  announce();
}

bool RunQueue::remove(const QString& dir) {
  const auto clean = QDir::cleanPath(dir);
  for (int i = 0; i < int(entries_.size()); ++i) {
    if (QDir::cleanPath(QString::fromStdString(entries_[i].config.out_dir)) != clean) continue;
    entries_.removeAt(i);
    announce();
    return true;
  }
  return false;
}

RunQueue::Entry RunQueue::takeFirst() {
  auto next = entries_.takeFirst();
  announce();
  return next;
}

void RunQueue::clear() {
  entries_.clear();
  announce();
}

void RunQueue::announce() {
  QStringList dirs;
  for (const auto& q : entries_) dirs << QString::fromStdString(q.config.out_dir);
  Q_EMIT changed(dirs);
}

}  // namespace fovea::ui
