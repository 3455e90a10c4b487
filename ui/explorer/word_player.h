#pragma once
/// Plays a caption word by word: a current index that advances on a timer, with play/pause,
/// step back/forward and speed. Loops with a longer hold on the last word.
#include <QObject>
#include <QTimer>

namespace fovea::ui {

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
