#include "ui/explorer/explorer_panel.h"

#include <QBoxLayout>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/common/attention_view.h"
#include "ui/common/live_text.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/panel_notes.h"
#include "ui/explorer/probe_line.h"
#include "ui/explorer/take_away_line.h"

namespace fovea::ui {

namespace {
/// Rows of chips the caption's space holds without scrolling: the captions of the shipped
/// models and those of a few thousand steps take one or two rows beside each other at 1024 px.
constexpr int kCaptionRows = 2;

/// What goes with the image: the words in their fixed space, the word's numbers with the
/// take-away button, and the notes.
QWidget* details_column(QScrollArea* strip_space, CaptionStrip* strip, LiveText* readout, QPushButton* take_away,
                        PanelNotes* notes) {
  auto* column = new QWidget;
  // Its notes wrap to the width it gets: it takes no part in how wide the panels are (compared
  // side by side, the panels split the window evenly whatever their notes say).
  column->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* details = new QVBoxLayout(column);
  details->setContentsMargins(0, 0, 0, 0);
  strip_space->setWidget(strip);
  strip_space->setWidgetResizable(true);
  strip_space->setFrameShape(QFrame::NoFrame);
  strip_space->setFocusPolicy(Qt::NoFocus);  // no Tab stop of its own: the chips are, and it scrolls to them
  strip_space->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the chips wrap instead
  strip_space->viewport()->setBackgroundRole(QPalette::Window);
  strip_space->setFixedHeight(strip->heightOfRows(kCaptionRows));
  details->addWidget(strip_space);
  auto* word_row = new QHBoxLayout;
  word_row->addWidget(readout, 1);
  word_row->addWidget(take_away);
  details->addLayout(word_row);
  details->addWidget(notes);
  return column;
}

/// Scrolls `strip_space` to word `index`'s chip of `strip`.
void show_chip(QScrollArea* strip_space, const CaptionStrip* strip, int index) {
  const QRect chip = strip->wordRect(index);
  if (chip.isValid()) strip_space->ensureVisible(chip.center().x(), chip.center().y(), 0, chip.height() / 2 + 2);
}

/// Word `i`'s numbers: its probability, β (where the model has the gate: a hard model's is always
/// 1), peak α, and the caption's log probability (the sum of the words', and <end>'s for scored
/// captions) with how long it took.
QString readout_text(const fovea::CaptionResult& caption, int i, bool scored, double ms) {
  const auto& w = caption.words[std::size_t(i)];
  const QString beta = caption.beta_gated ? ExplorerPanel::tr("\u03B2 = %1 &nbsp; ").arg(w.beta, 0, 'f', 2) : QString();
  return ExplorerPanel::tr("%1 <b>%2</b> &nbsp; p(word) = %3 &nbsp; %4peak \u03B1 = %5 &nbsp; "
                           "<span style='color:gray'>caption log p = %6 · %7 ms</span>")
      .arg(scored ? ExplorerPanel::tr("your caption:") : ExplorerPanel::tr("word %1:").arg(i + 1))
      .arg(QString::fromStdString(w.word).toHtmlEscaped())
      .arg(std::exp(w.log_prob), 0, 'f', 3)
      .arg(beta)
      .arg(w.alpha.empty() ? 0.0 : *std::max_element(w.alpha.begin(), w.alpha.end()), 0, 'f', 3)
      .arg(caption.log_prob, 0, 'f', 2)
      .arg(ms, 0, 'f', 0);
}

}  // namespace

ExplorerPanel::ExplorerPanel(QWidget* parent)
    : QWidget(parent), session_(new ModelSession(this)), title_(new PanelTitle), view_(new AttentionView),
      strip_(new CaptionStrip), strip_space_(new QScrollArea), readout_(new LiveText), notes_(new PanelNotes) {
  const PanelParts parts{&shown_, session_, view_, strip_, notes_};
  probe_ = new ProbeLine(parts, this);
  take_away_ = new TakeAwayLine(parts, this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // Everything but the image has a height of its own, whatever it shows: the image's size
  // depends on the window only (it jumped as captions took one row or two, and as the title's
  // warning came and went).
  layout->addWidget(title_);
  // The image, and under it (beside it on a short screen: setCompact) the words and their notes.
  body_ = new QBoxLayout(QBoxLayout::TopToBottom);
  layout->addLayout(body_, 1);
  body_->addWidget(view_, 1);
  details_ = details_column(strip_space_, strip_, readout_, take_away_->button(), notes_);
  body_->addWidget(details_);

  connect(session_, &ModelSession::modelLoaded, this, [this](const ModelDescription& m) {
    title_->showModel(m);
    Q_EMIT modelLoaded(m);
    request();
  });
  connect(session_, &ModelSession::modelFailed, this, [this](const QString& path, const QString& error) {
    Q_EMIT modelFailed(title_->showFailure(session_->model(), path, error));
  });
  connect(session_, &ModelSession::captionReady, this, &ExplorerPanel::showReply);
  // One of them at a time: a probe puts a take-away back, a take-away ends a probe.
  connect(probe_, &ProbeLine::held, this, [this] {
    take_away_->clear();
    Q_EMIT wordHeld();
  });
  connect(take_away_, &TakeAwayLine::held, this, [this] {
    probe_->clear();
    Q_EMIT wordHeld();
  });
  connect(view_, &AttentionView::dismissRequested, this, &ExplorerPanel::dismissNotes);
  connect(session_, &ModelSession::captionFailed, this, [this](quint64 id, const QString& error) {
    if (probe_->showFailure(id, error) || take_away_->showFailure(id, error)) return;
    if (error.isEmpty() || id != latest_) return;  // superseded by a newer request
    strip_->setMessage(tr("Captioning failed"));
    Q_EMIT errorOccurred(error);
  });
}

void ExplorerPanel::setCompact(bool compact) {
  if (compact == (body_->direction() == QBoxLayout::LeftToRight)) return;
  // Beside the image the words have the image's height: as many rows of chips as fit.
  body_->setDirection(compact ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
  body_->setStretchFactor(details_, compact ? 1 : 0);
  if (compact) {
    strip_space_->setMinimumHeight(strip_->heightOfRows(1));
    strip_space_->setMaximumHeight(QWIDGETSIZE_MAX);
  } else {
    strip_space_->setFixedHeight(strip_->heightOfRows(kCaptionRows));
  }
}

QString ExplorerPanel::modelPath() const { return session_->model() ? session_->model()->path : QString(); }

void ExplorerPanel::loadModel(const QString& path) {
  title_->showLoading(path);
  session_->loadModel(path);
}

void ExplorerPanel::setImage(const QImage& image) {
  shown_.image = image;
  probe_->clear();
  take_away_->clear();
  view_->setImage(image);
  view_->clearCaption();
  shown_.has_caption = false;
  strip_->clear();
  request();
}

void ExplorerPanel::setLiveFrame(const QImage& frame) {
  shown_.image = frame;
  view_->setImage(frame);
  if (!session_->isBusy()) request();
}

void ExplorerPanel::showLiveFrame(const QImage& frame, const fovea::CaptionResult& caption) {
  shown_.image = frame;
  view_->setImage(frame);
  if (caption.words.empty()) return;
  const bool same = shown_.has_caption && caption.text() == shown_.caption.text();
  const int keep = selectedWord();
  shown_.caption = caption;
  shown_.has_caption = true;
  title_->showFamiliarity(std::nullopt, {});
  view_->setCaption(shown_.caption);
  strip_->setCaption(shown_.caption, false);
  const int n = int(shown_.caption.words.size());
  setWordIndex(std::clamp(keep, 0, n - 1));
  if (!same) Q_EMIT captionShown(n);
}

void ExplorerPanel::setCaptionOptions(const fovea::CaptionOptions& options) {
  shown_.options = options;
  if (user_caption_.isEmpty()) request();
}

void ExplorerPanel::setUserCaption(const QString& text) {
  user_caption_ = text.trimmed();
  request();
}

int ExplorerPanel::selectedWord() const { return strip_->current(); }

void ExplorerPanel::previewWord(int index) {
  if (!shown_.has_caption || view_->hasProbe() || view_->hasRemoval()) return;
  const int shown = index >= 0 && index < int(shown_.caption.words.size()) ? index : selectedWord();
  view_->setWordIndex(shown);
  showReadout(shown);
}

void ExplorerPanel::setWordIndex(int index) {
  if (shown_.has_caption) index = std::min(index, int(shown_.caption.words.size()) - 1);
  if (index != selectedWord()) dismissNotes();
  view_->setWordIndex(index);
  strip_->setCurrent(index);
  show_chip(strip_space_, strip_, index);
  showReadout(selectedWord());
  take_away_->updateButton();
}

void ExplorerPanel::request() {
  if (shown_.image.isNull() || !session_->hasModel()) {
    // A model still loading will call request() again when it is ready.
    return;
  }
  strip_->setMessage(user_caption_.isEmpty() ? tr("Captioning…") : tr("Scoring your caption…"));
  latest_ = user_caption_.isEmpty() ? session_->caption(shown_.image, shown_.options)
                                    : session_->score(shown_.image, user_caption_);
}

void ExplorerPanel::showReply(const CaptionReply& reply) {
  if (reply.id != latest_) return;
  shown_.caption = reply.result;
  shown_.has_caption = true;
  dismissNotes();
  title_->showFamiliarity(shown_.caption.familiarity, modelPath());
  scored_ = reply.scored;
  last_ms_ = reply.milliseconds;
  const int keep = selectedWord();
  view_->setCaption(shown_.caption);
  strip_->setCaption(shown_.caption, scored_);
  const int n = int(shown_.caption.words.size());
  setWordIndex(n == 0 ? -1 : std::clamp(keep, 0, n - 1));
  Q_EMIT captionShown(n);
}

void ExplorerPanel::dismissNotes() {
  probe_->clear();
  take_away_->clear();
}

void ExplorerPanel::showReadout(int word) {
  if (shown_.hasWord(word)) readout_->setText(readout_text(shown_.caption, word, scored_, last_ms_));
  else readout_->clear();
}

}  // namespace fovea::ui
