#pragma once
/// "See the model learn": the captions and α of a few fixed validation images at the latest
/// snapshot of a run (or any earlier one, picked with a slider), the α heatmaps animating word
/// by word in step.
#include <QImage>
#include <QMap>
#include <QWidget>

#include <vector>

#include "core/train/train_records.h"

class QLabel;
class QSlider;
class QGridLayout;

namespace fovea::ui {

class AttentionView;
class LiveText;
class WordPlayer;

class SampleGallery : public QWidget {
  Q_OBJECT
 public:
  explicit SampleGallery(QWidget* parent = nullptr);

  /// Replaces the history (a past run's samples.jsonl); shows the latest.
  void setHistory(const std::vector<fovea::SampleRecord>& records);
  /// A live snapshot; shown at once unless the user has moved the slider back.
  void addRecord(const fovea::SampleRecord& record);
  /// No samples; `note` (empty: what appears here, and when) says why.
  void clear(const QString& note = {});
  QString note() const;

  int snapshotCount() const { return int(history_.size()); }
  void showSnapshot(int index);
  /// The captions on screen, one per image.
  QStringList captions() const;
  WordPlayer* player() const { return player_; }

 private:
  void ensureViews(std::size_t count);
  void showWord(int index);
  QImage imageAt(const std::string& path);

  std::vector<fovea::SampleRecord> history_;
  int shown_ = -1;
  QGridLayout* grid_;
  QSlider* slider_;
  QLabel* step_label_;
  QLabel* placeholder_;
  QList<AttentionView*> views_;
  QList<LiveText*> labels_;  ///< each caption, its current word marked (changes as the words play)
  WordPlayer* player_;
  QMap<QString, QImage> images_;
};

}  // namespace fovea::ui
