// MainWindow's controls: the bottom toolbar (playback, decoding, overlay) and the row for the
// user's own caption.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QKeyEvent>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>

#include "core/decode/caption_settings.h"
#include "core/render/heatmap.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/common/word_player.h"

namespace fovea::ui {

namespace {

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

}  // namespace

void MainWindow::buildControls() {
  QToolBar* tb = new QToolBar(tr("Playback and overlay"));
  tb->setObjectName(QStringLiteral("controlsToolbar"));
  addToolBar(Qt::BottomToolBarArea, tb);

  auto* back = new QToolButton;
  back->setIcon(style()->standardIcon(QStyle::SP_MediaSeekBackward));
  back->setToolTip(tr("Previous word (,)"));  // the shortcut is the `prev` action's below
  connect(back, &QToolButton::clicked, player_, &WordPlayer::stepBack);
  play_button_ = new QToolButton;
  play_button_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  play_button_->setToolTip(tr("Play the caption word by word (Space)"));
  connect(play_button_, &QToolButton::clicked, player_, &WordPlayer::toggle);
  auto* fwd = new QToolButton;
  fwd->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
  fwd->setToolTip(tr("Next word (.)"));
  connect(fwd, &QToolButton::clicked, player_, &WordPlayer::stepForward);
  // The player's keys, also in the Playback menu (one action per key: never two owners).
  auto* space = playback_menu_->addAction(tr("&Play / Pause"));
  space->setShortcut(QKeySequence(Qt::Key_Space));
  connect(space, &QAction::triggered, player_, &WordPlayer::toggle);
  addAction(space);
  qApp->installEventFilter(new SpaceForFocusedButtons(this));
  auto* prev = playback_menu_->addAction(tr("P&revious Word"));
  prev->setShortcuts({QKeySequence(Qt::Key_Comma), QKeySequence(Qt::ALT | Qt::Key_Left)});
  connect(prev, &QAction::triggered, player_, &WordPlayer::stepBack);
  addAction(prev);
  auto* next = playback_menu_->addAction(tr("&Next Word"));
  next->setShortcuts({QKeySequence(Qt::Key_Period), QKeySequence(Qt::ALT | Qt::Key_Right)});
  connect(next, &QAction::triggered, player_, &WordPlayer::stepForward);
  addAction(next);
  auto* dismiss = playback_menu_->addAction(tr("&Dismiss Probe or Take-Away"));
  dismiss->setShortcut(QKeySequence(Qt::Key_Escape));
  dismiss->setToolTip(tr("Show the word's own attention again (also: right-click the image)"));
  connect(dismiss, &QAction::triggered, this, [this] {
    primary_->dismissNotes();
    compare_->dismissNotes();
  });
  addAction(dismiss);
  playback_menu_->addSeparator();

  speed_ = new QSlider(Qt::Horizontal);
  speed_->setObjectName(QStringLiteral("speed"));
  speed_->setRange(1, 16);  // half-words per second
  speed_->setValue(4);
  speed_->setFixedWidth(90);
  speed_->setToolTip(tr("Playback speed ([ slower, ] faster)"));
  connect(speed_, &QSlider::valueChanged, this, [this](int v) { player_->setWordsPerSecond(v / 2.0); });
  player_->setWordsPerSecond(speed_->value() / 2.0);
  auto* faster = playback_menu_->addAction(tr("&Faster"));
  faster->setShortcut(QKeySequence(Qt::Key_BracketRight));
  connect(faster, &QAction::triggered, this, [this] { speed_->setValue(speed_->value() + 1); });
  addAction(faster);
  auto* slower = playback_menu_->addAction(tr("&Slower"));
  slower->setShortcut(QKeySequence(Qt::Key_BracketLeft));
  connect(slower, &QAction::triggered, this, [this] { speed_->setValue(speed_->value() - 1); });
  addAction(slower);

  beam_ = new QSpinBox;
  beam_->setObjectName(QStringLiteral("beam"));
  const auto& beam = fovea::caption_setting("beam");  // the range every command takes
  beam_->setRange(int(beam.min), int(beam.max));
  beam_->setValue(3);
  beam_->setPrefix(tr("beam "));
  beam_->setToolTip(tr("Beam width"));
  greedy_ = new QCheckBox(tr("greedy"));
  sample_glimpses_ = new QCheckBox(tr("sampled glimpses"));
  sample_glimpses_->setToolTip(tr("Hard attention: sample one glimpse per word instead of using the expected \u03B1"));
  sample_glimpses_->setEnabled(false);  // until a hard model is shown (updateGlimpseSwitch)
  connect(beam_, &QSpinBox::valueChanged, this, &MainWindow::applyDecoding);
  connect(greedy_, &QCheckBox::toggled, this, &MainWindow::applyDecoding);
  connect(sample_glimpses_, &QCheckBox::toggled, this, &MainWindow::applyDecoding);

  colormap_ = new QComboBox;
  colormap_->setObjectName(QStringLiteral("overlay"));
  for (const auto& name : fovea::colormap_names()) colormap_->addItem(QString::fromStdString(name));
  colormap_->setToolTip(tr("How attention is drawn: spotlight darkens the image outside it (its colours stay readable); "
                           "the colormaps paint a heat layer over it"));
  opacity_ = new QSlider(Qt::Horizontal);
  opacity_->setRange(0, 100);
  opacity_->setValue(60);
  opacity_->setFixedWidth(90);
  opacity_->setToolTip(tr("Overlay strength (spotlight: how dark the unattended image gets)"));
  smooth_ = new QCheckBox(tr("smooth"));
  smooth_->setObjectName(QStringLiteral("smooth"));
  smooth_->setChecked(true);
  smooth_->setToolTip(tr("Smooth upsampling of \u03B1; off: one block per attention cell"));
  connect(colormap_, &QComboBox::currentIndexChanged, this, &MainWindow::applyOverlayStyle);
  connect(opacity_, &QSlider::valueChanged, this, &MainWindow::applyOverlayStyle);
  connect(smooth_, &QCheckBox::toggled, this, &MainWindow::applyOverlayStyle);

  user_caption_ = new QLineEdit;
  user_caption_->setObjectName(QStringLiteral("user-caption"));
  user_caption_->setPlaceholderText(tr("Type your own caption and press Enter to see where the model looks…"));
  user_caption_->setClearButtonEnabled(true);
  connect(user_caption_, &QLineEdit::returnPressed, this, [this] { setUserCaption(user_caption_->text()); });
  auto* own = new QPushButton(tr("Model's caption"));
  own->setToolTip(tr("Back to the caption the model generates"));
  connect(own, &QPushButton::clicked, this, [this] {
    user_caption_->clear();
    setUserCaption(QString());
  });

  tb->addWidget(back);
  tb->addWidget(play_button_);
  tb->addWidget(fwd);
  tb->addWidget(new QLabel(tr(" speed ")));
  tb->addWidget(speed_);
  tb->addSeparator();
  tb->addWidget(beam_);
  tb->addWidget(greedy_);
  tb->addWidget(sample_glimpses_);
  tb->addSeparator();
  tb->addWidget(colormap_);
  tb->addWidget(new QLabel(tr(" strength ")));
  tb->addWidget(opacity_);
  tb->addWidget(smooth_);

  // The typed caption has a row of its own under the captions, at every window size.
  user_caption_row_ = new QWidget;
  auto* row = new QHBoxLayout(user_caption_row_);
  row->setContentsMargins(0, 2, 0, 2);
  row->addWidget(new QLabel(tr("Your caption:")));
  row->addWidget(user_caption_, 1);
  row->addWidget(own);
}

}  // namespace fovea::ui
