// The caption player's controls: toolbar buttons, speed, and the Playback menu's keys.
#include "ui/explorer/playback_controls.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QSlider>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>

#include "ui/common/settings_writer.h"
#include "ui/common/word_player.h"

namespace fovea::ui {

namespace {

const QString kSpeed = QStringLiteral("view/speed");

/// Space is the player's key, except where a focused button or check box wants it (to press or
/// tick it): there the widget takes it, so every control works from the keyboard.
class SpaceForFocusedButtons : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::ShortcutOverride && qobject_cast<QAbstractButton*>(watched) != nullptr) {
      const auto* key = static_cast<QKeyEvent*>(event);
      if (key->key() == Qt::Key_Space && key->modifiers() == Qt::NoModifier) {
        event->accept();  // the key press goes to the button, not to the shortcut
        return true;
      }
    }
    return false;
  }
};

/// An action of `menu` with these keys, also added to `window` so the keys work all over it.
QAction* key_action(QMenu* menu, QWidget* window, const QString& text, const QList<QKeySequence>& keys) {
  QAction* action = menu->addAction(text);
  action->setShortcuts(keys);
  window->addAction(action);
  return action;
}

}  // namespace

PlaybackControls::PlaybackControls(WordPlayer* player, QToolBar* bar, QMenu* menu, QWidget* window)
    : QObject(bar), player_(player) {
  addButtons(bar);
  addWordActions(menu, window);
  qApp->installEventFilter(new SpaceForFocusedButtons(window));
  addSpeed(bar, menu, window);
  connect(player_, &WordPlayer::playingChanged, this, &PlaybackControls::showPlaying);
}

void PlaybackControls::addButtons(QToolBar* bar) {
  const QStyle* style = bar->style();
  auto* back = new QToolButton;
  back->setIcon(style->standardIcon(QStyle::SP_MediaSeekBackward));
  back->setToolTip(tr("Previous word (,)"));  // the shortcut is the Previous Word action's
  connect(back, &QToolButton::clicked, player_, &WordPlayer::stepBack);
  play_button_ = new QToolButton;
  play_button_->setIcon(style->standardIcon(QStyle::SP_MediaPlay));
  play_button_->setToolTip(tr("Play the caption word by word (Space)"));
  connect(play_button_, &QToolButton::clicked, player_, &WordPlayer::toggle);
  auto* fwd = new QToolButton;
  fwd->setIcon(style->standardIcon(QStyle::SP_MediaSeekForward));
  fwd->setToolTip(tr("Next word (.)"));
  connect(fwd, &QToolButton::clicked, player_, &WordPlayer::stepForward);
  bar->addWidget(back);
  bar->addWidget(play_button_);
  bar->addWidget(fwd);
}

void PlaybackControls::addWordActions(QMenu* menu, QWidget* window) {
  // The player's keys, also in the Playback menu (one action per key: never two owners).
  QAction* space = key_action(menu, window, tr("&Play / Pause"), {QKeySequence(Qt::Key_Space)});
  connect(space, &QAction::triggered, player_, &WordPlayer::toggle);
  QAction* prev = key_action(menu, window, tr("P&revious Word"), {QKeySequence(Qt::Key_Comma), QKeySequence(Qt::ALT | Qt::Key_Left)});
  connect(prev, &QAction::triggered, player_, &WordPlayer::stepBack);
  QAction* next = key_action(menu, window, tr("&Next Word"), {QKeySequence(Qt::Key_Period), QKeySequence(Qt::ALT | Qt::Key_Right)});
  connect(next, &QAction::triggered, player_, &WordPlayer::stepForward);
  QAction* dismiss = key_action(menu, window, tr("&Dismiss Probe or Take-Away"), {QKeySequence(Qt::Key_Escape)});
  dismiss->setToolTip(tr("Show the word's own attention again (also: right-click the image)"));
  connect(dismiss, &QAction::triggered, this, &PlaybackControls::dismissRequested);
  menu->addSeparator();
}

void PlaybackControls::addSpeed(QToolBar* bar, QMenu* menu, QWidget* window) {
  speed_ = new QSlider(Qt::Horizontal);
  speed_->setObjectName(QStringLiteral("speed"));
  speed_->setRange(1, 16);  // half-words per second
  speed_->setValue(4);
  speed_->setFixedWidth(90);
  speed_->setToolTip(tr("Playback speed ([ slower, ] faster)"));
  connect(speed_, &QSlider::valueChanged, this, [this](int v) { player_->setWordsPerSecond(v / 2.0); });
  player_->setWordsPerSecond(speed_->value() / 2.0);
  QAction* faster = key_action(menu, window, tr("&Faster"), {QKeySequence(Qt::Key_BracketRight)});
  connect(faster, &QAction::triggered, this, [this] { speed_->setValue(speed_->value() + 1); });
  QAction* slower = key_action(menu, window, tr("&Slower"), {QKeySequence(Qt::Key_BracketLeft)});
  connect(slower, &QAction::triggered, this, [this] { speed_->setValue(speed_->value() - 1); });
  bar->addWidget(new QLabel(tr(" speed ")));
  bar->addWidget(speed_);
}

void PlaybackControls::showPlaying(bool playing) {
  play_button_->setIcon(play_button_->style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  play_button_->setToolTip(playing ? tr("Pause (Space)") : tr("Play the caption word by word (Space)"));
}

void PlaybackControls::restore() {
  const QSettings s;
  if (s.contains(kSpeed)) speed_->setValue(s.value(kSpeed).toInt());
}

void PlaybackControls::remember() const { remember_setting(kSpeed, speed_->value()); }

}  // namespace fovea::ui
