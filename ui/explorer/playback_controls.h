#pragma once
/// The studio's playback controls: the caption player's buttons (previous word, play/pause, next
/// word) and speed on the bottom toolbar, and the same keys in the Playback menu (Space, comma,
/// period, brackets, Escape), one action per key. The speed is remembered between sessions.
#include <QObject>

class QMenu;
class QSlider;
class QToolBar;
class QToolButton;
class QWidget;

namespace fovea::ui {

class WordPlayer;

class PlaybackControls : public QObject {
  Q_OBJECT
 public:
  /// Adds the buttons to `bar` and the actions to `menu` and to `window` (so their keys work
  /// wherever the focus is in it).
  PlaybackControls(WordPlayer* player, QToolBar* bar, QMenu* menu, QWidget* window);

  void restore();  ///< the last session's speed (QSettings "view/speed")
  void remember() const;

 Q_SIGNALS:
  /// Escape: the panels should show the word's own α again instead of a probe or a take-away.
  void dismissRequested();

 private:
  void addButtons(QToolBar* bar);
  void addWordActions(QMenu* menu, QWidget* window);
  void addSpeed(QToolBar* bar, QMenu* menu, QWidget* window);
  void showPlaying(bool playing);

  WordPlayer* player_;
  QToolButton* play_button_ = nullptr;
  QSlider* speed_ = nullptr;
};

}  // namespace fovea::ui
