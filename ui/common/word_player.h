#pragma once
/// Plays a caption word by word: a current index that advances on a timer, with play/pause,
/// step back/forward and speed. Loops with a longer hold on the last word.
#include <QObject>
#include <QStringList>
#include <QTimer>

namespace fovea::ui {

/// The word of `after` to stay on when the caption of the same image changes (another beam width,
/// greedy, another model) while `current` of `before` is shown: the same word, where the new
/// caption has it (its occurrence nearest the old place), else the same place (the last word at most).
int word_to_keep(const QStringList& before, int current, const QStringList& after);

class WordPlayer : public QObject {
  Q_OBJECT
 public:
  explicit WordPlayer(QObject* parent = nullptr);

  void setCount(int words);  ///< resets to the first word (or -1 when 0)
  int count() const { return count_; }
  int current() const { return current_; }
  bool isPlaying() const { return timer_.isActive(); }
  double wordsPerSecond() const { return wps_; }

  void setWordsPerSecond(double wps);
  void setCurrent(int index);
  void play();
  void pause();
  void toggle();
  void stepForward();
  void stepBack();

 Q_SIGNALS:
  void currentChanged(int index);
  void playingChanged(bool playing);

 private:
  void tick();
  int interval() const;

  QTimer timer_;
  int count_ = 0;
  int current_ = -1;
  double wps_ = 2.0;
};

}  // namespace fovea::ui
