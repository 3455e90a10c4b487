#pragma once
/// The runs waiting for the one training now: each starts, in order, as the one before it ends.
/// The run list shows them (changed() gives their folders after every change).
#include <QList>
#include <QObject>
#include <QStringList>

#include "core/train/train_config.h"

namespace fovea::ui {

class RunQueue : public QObject {
  Q_OBJECT
 public:
  struct Entry {
    fovea::TrainConfig config;
    int processes = 1;
  };
  explicit RunQueue(QObject* parent) : QObject(parent) {}

  void add(const fovea::TrainConfig& config, int processes);
  /// Takes the run writing to `dir` out; false when none is queued there.
  bool remove(const QString& dir);
  /// The next run to start (the queue must not be empty).
  Entry takeFirst();
  void clear();
  int size() const { return int(entries_.size()); }
  bool isEmpty() const { return entries_.isEmpty(); }

 Q_SIGNALS:
  /// The queued runs' folders, in order.
  void changed(const QStringList& dirs);

 private:
  void announce();

  QList<Entry> entries_;
};

}  // namespace fovea::ui
