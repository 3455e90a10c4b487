#include "ui/explorer/explorer_panel.h"

#include <QDir>
#include <QFileInfo>
#include <QBoxLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "core/io/model_name.h"
#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/common/image_convert.h"
#include "ui/common/live_text.h"
#include "ui/explorer/panel_notes.h"

namespace fovea::ui {

namespace {
/// Rows of chips the caption's space holds without scrolling: the captions of the shipped
/// models and those of a few thousand steps take one or two rows beside each other at 1024 px.
constexpr int kCaptionRows = 2;
/// The header: the model's name and summary, and the warning beside it; one line high always.
QWidget* title_row(LiveText* title, QLabel* unfamiliar) {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(title, 1);
  layout->addWidget(unfamiliar);
  row->setFixedHeight(std::max(title->sizeHint().height(), unfamiliar->sizeHint().height()));
  return row;
}

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

}  // namespace

ExplorerPanel::ExplorerPanel(QWidget* parent)
    : QWidget(parent), session_(new ModelSession(this)), title_(new LiveText), view_(new AttentionView),
      strip_(new CaptionStrip), strip_space_(new QScrollArea), readout_(new LiveText),
      take_away_button_(new QPushButton(tr("Take it away"))), unfamiliar_(new QLabel), notes_(new PanelNotes) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // Everything but the image has a height of its own, whatever it shows: the image's size
  // depends on the window only (it jumped as captions took one row or two, and as the warning
  // below came and went).
  setTitle(tr("<b>No model</b>"));
  unfamiliar_->setObjectName("unfamiliar");
  unfamiliar_->setText(tr("⚠ unlike its training images"));
  unfamiliar_->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #664d03; padding: 0px 4px; border-radius: 3px; }"));
  unfamiliar_->hide();
  layout->addWidget(title_row(title_, unfamiliar_));
  // The image, and under it (beside it on a short screen: setCompact) the words and their notes.
  body_ = new QBoxLayout(QBoxLayout::TopToBottom);
  layout->addLayout(body_, 1);
  body_->addWidget(view_, 1);
  take_away_button_->setObjectName("takeAwayButton");
  take_away_button_->setToolTip(tr("Remove what the model looks at for this word (and, as a control, as much "
                                   "elsewhere), then ask it again: does the word go?"));
  take_away_button_->setEnabled(false);
  details_ = details_column(strip_space_, strip_, readout_, take_away_button_, notes_);
  body_->addWidget(details_);

  connect(session_, &ModelSession::modelLoaded, this, [this](const ModelDescription& m) {
    showModelTitle(m);
    Q_EMIT modelLoaded(m);
    request();
  });
  connect(session_, &ModelSession::modelFailed, this, [this](const QString& path, const QString& error) {
    // The model loaded before (if any) goes on captioning: the header names it again.
    if (const auto* m = session_->model()) showModelTitle(*m);
    else setTitle(tr("<b>No model</b> (the last one failed to load)"));
    // The core's messages start with the file's path: say it once.
    const QString why = error.startsWith(path + QStringLiteral(": ")) ? error.mid(path.size() + 2) : error;
    Q_EMIT modelFailed(tr("Could not load %1 %2: %3").arg(model_role_, path, why));
  });
  connect(session_, &ModelSession::captionReady, this, &ExplorerPanel::showReply);
  connect(session_, &ModelSession::probeReady, this, &ExplorerPanel::showProbe);
  connect(session_, &ModelSession::takeAwayReady, this, &ExplorerPanel::showTakeAway);
  connect(take_away_button_, &QPushButton::clicked, this, [this] {
    if (view_->hasRemoval()) clearTakeAway();  // "Put it back"
    else takeAwayWord();
  });
  connect(view_, &AttentionView::regionSelected, this, &ExplorerPanel::probeRegion);
  connect(view_, &AttentionView::dismissRequested, this, &ExplorerPanel::dismissNotes);
  connect(session_, &ModelSession::captionFailed, this, [this](quint64 id, const QString& error) {
    if (!error.isEmpty() && id == probe_latest_) {
      notes_->setNote(PanelNotes::Kind::Probe, tr("<span style='color:gray'>Probe failed:</span> %1").arg(error.toHtmlEscaped()));
      return;
    }
    if (!error.isEmpty() && id == take_away_latest_) {
      notes_->setNote(PanelNotes::Kind::TakeAway,
                      tr("<span style='color:gray'>Not taken away:</span> %1").arg(error.toHtmlEscaped()));
      updateTakeAwayButton();
      return;
    }
    if (error.isEmpty() || id != latest_) return;  // superseded by a newer request
    strip_->setMessage(tr("Captioning failed"));
    Q_EMIT errorOccurred(error);
  });
  connect(strip_, &CaptionStrip::wordClicked, this, &ExplorerPanel::wordClicked);
  connect(strip_, &CaptionStrip::wordHovered, this, &ExplorerPanel::wordHovered);
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

void ExplorerPanel::showModelTitle(const ModelDescription& m) {
  setTitle(QStringLiteral("<b>%1</b> &nbsp;<span style='color:gray'>%2</span>")
               .arg(model_file_title(m.path).toHtmlEscaped(), m.summary.toHtmlEscaped()),
           m.card);
}

void ExplorerPanel::setTitle(const QString& rich_text, const QString& tool_tip) {
  title_->setText(rich_text);
  if (!tool_tip.isEmpty()) title_->setToolTip(tool_tip);  // else the whole text, for when it is cut
}

void ExplorerPanel::showChip(int index) {
  const QRect chip = strip_->wordRect(index);
  if (chip.isValid()) strip_space_->ensureVisible(chip.center().x(), chip.center().y(), 0, chip.height() / 2 + 2);
}

QString model_file_title(const QString& path) {
  // A run's checkpoints are all best.ckpt or last.ckpt: the run folder tells two apart.
  const QFileInfo file(path);
  const bool in_run = QFileInfo::exists(file.dir().filePath(QStringLiteral("metrics.jsonl")));
  return in_run ? file.dir().dirName() + QLatin1Char('/') + file.fileName() : file.fileName();
}

QString ExplorerPanel::titleText() const { return title_->text(); }

QString ExplorerPanel::titleToolTip() const { return title_->toolTip(); }

QString ExplorerPanel::modelPath() const { return session_->model() ? session_->model()->path : QString(); }

void ExplorerPanel::loadModel(const QString& path) {
  setTitle(tr("<b>Loading %1…</b>").arg(QFileInfo(path).fileName().toHtmlEscaped()));
  session_->loadModel(path);
}

void ExplorerPanel::setImage(const QImage& image) {
  image_ = image;
  clearProbe();
  clearTakeAway();
  view_->setImage(image);
  view_->clearCaption();
  has_caption_ = false;
  strip_->clear();
  request();
}

void ExplorerPanel::setLiveFrame(const QImage& frame) {
  image_ = frame;
  view_->setImage(frame);
  if (!session_->isBusy()) request();
}

void ExplorerPanel::showLiveFrame(const QImage& frame, const fovea::CaptionResult& caption) {
  image_ = frame;
  view_->setImage(frame);
  if (caption.words.empty()) return;
  const bool same = has_caption_ && caption.text() == caption_.text();
  const int keep = selectedWord();
  caption_ = caption;
  has_caption_ = true;
  unfamiliar_->hide();
  view_->setCaption(caption_);
  strip_->setCaption(caption_, false);
  const int n = int(caption_.words.size());
  setWordIndex(std::clamp(keep, 0, n - 1));
  if (!same) Q_EMIT captionShown(n);
}

void ExplorerPanel::setCaptionOptions(const fovea::CaptionOptions& options) {
  options_ = options;
  if (user_caption_.isEmpty()) request();
}

void ExplorerPanel::setUserCaption(const QString& text) {
  user_caption_ = text.trimmed();
  request();
}

void ExplorerPanel::setOverlayStyle(const fovea::OverlayStyle& style) { view_->setOverlayStyle(style); }

int ExplorerPanel::selectedWord() const { return strip_->current(); }

void ExplorerPanel::previewWord(int index) {
  if (!has_caption_ || view_->hasProbe() || view_->hasRemoval()) return;
  const int shown = index >= 0 && index < int(caption_.words.size()) ? index : selectedWord();
  view_->setWordIndex(shown);
  showReadout(shown);
}

void ExplorerPanel::setWordIndex(int index) {
  if (has_caption_) index = std::min(index, int(caption_.words.size()) - 1);
  if (index != selectedWord()) {
    clearProbe();
    clearTakeAway();
  }
  view_->setWordIndex(index);
  strip_->setCurrent(index);
  showChip(index);
  updateReadout();
  updateTakeAwayButton();
}

void ExplorerPanel::request() {
  if (image_.isNull() || !session_->hasModel()) {
    // A model still loading will call request() again when it is ready.
    return;
  }
  strip_->setMessage(user_caption_.isEmpty() ? tr("Captioning…") : tr("Scoring your caption…"));
  latest_ = user_caption_.isEmpty() ? session_->caption(image_, options_) : session_->score(image_, user_caption_);
}

void ExplorerPanel::showReply(const CaptionReply& reply) {
  if (reply.id != latest_) return;
  caption_ = reply.result;
  has_caption_ = true;
  clearProbe();
  clearTakeAway();
  const auto& familiarity = caption_.familiarity;
  if (familiarity && !familiarity->familiar()) {
    unfamiliar_text_ = tr("⚠ This image is unlike what %1 was trained on: its caption is unreliable.")
                           .arg(QString::fromStdString(model_display_name(modelPath().toStdString())));
    unfamiliar_->setToolTip(unfamiliar_text_ + QLatin1Char('\n') +
                            tr("Distance of its features from the training images: %1; 99% of validation images "
                               "are within %2, the limit is %3.")
                                .arg(familiarity->distance, 0, 'f', 1)
                                .arg(familiarity->validation_q99, 0, 'f', 1)
                                .arg(familiarity->threshold, 0, 'f', 1));
    unfamiliar_->show();
  } else {
    unfamiliar_->hide();
  }
  scored_ = reply.scored;
  last_ms_ = reply.milliseconds;
  const int keep = selectedWord();
  view_->setCaption(caption_);
  strip_->setCaption(caption_, scored_);
  const int n = int(caption_.words.size());
  setWordIndex(n == 0 ? -1 : std::clamp(keep, 0, n - 1));
  Q_EMIT captionShown(n);
}

void ExplorerPanel::probeRegion(const fovea::ProbeRegion& region) {
  if (image_.isNull() || !session_->hasModel() || !has_caption_) return;
  QStringList before;
  const int current = selectedWord();
  view_->setWordIndex(current);  // a word previewed under the pointer is not the one probed
  for (int i = 0; i < std::max(0, current) && i < int(caption_.words.size()); ++i)
    before << QString::fromStdString(caption_.words[std::size_t(i)].word);
  probe_prefix_ = before.join(QLatin1Char(' '));
  clearTakeAway();
  notes_->setNote(PanelNotes::Kind::Probe, tr("<span style='color:gray'>Looking there…</span>"));
  probe_latest_ = session_->probe(image_, region, probe_prefix_);
  probe_region_ = region;
  Q_EMIT wordHeld();
}

void ExplorerPanel::showProbe(const ProbeReply& reply) {
  if (reply.id != probe_latest_ || notes_->noteKind() != PanelNotes::Kind::Probe) return;
  const auto list = [](const std::vector<fovea::ProbeWord>& words, int count) {
    QStringList parts;
    for (int i = 0; i < std::min(count, int(words.size())); ++i)
      parts << (i == 0 ? QStringLiteral("<b>%1</b> %2") : QStringLiteral("%1 %2"))
                   .arg(QString::fromStdString(words[std::size_t(i)].word).toHtmlEscaped())
                   .arg(words[std::size_t(i)].p, 0, 'f', 2);
    return parts.join(QStringLiteral(" · "));
  };
  const QString where = probe_prefix_.isEmpty() ? tr("as the first word")
                                                : tr("after “%1”").arg(probe_prefix_.toHtmlEscaped());
  notes_->setNote(PanelNotes::Kind::Probe, tr("<span style='color:gray'>Looking there %1:</span> %2 &nbsp; <span "
                                               "style='color:gray'>with its own attention: %3</span>")
                                                .arg(where, list(reply.result.words, 5), list(reply.result.own_words, 2)));
  view_->setProbe(reply.result.alpha, probe_region_);
}

void ExplorerPanel::dismissNotes() {
  clearProbe();
  clearTakeAway();
}

void ExplorerPanel::clearProbe() {
  probe_latest_ = 0;
  notes_->clearNote(PanelNotes::Kind::Probe);
  view_->clearProbe();
}

void ExplorerPanel::takeAwayWord() {
  const int word = selectedWord();
  view_->setWordIndex(word);
  if (image_.isNull() || !session_->hasModel() || !has_caption_ || word < 0 || word >= int(caption_.words.size()))
    return;
  clearProbe();
  notes_->setNote(PanelNotes::Kind::TakeAway,
                  tr("<span style='color:gray'>Taking away what “%1” looks at, and a control…</span>")
                      .arg(QString::fromStdString(caption_.words[std::size_t(word)].word).toHtmlEscaped()));
  take_away_latest_ = session_->takeAway(image_, caption_, word, options_);
  updateTakeAwayButton();
  Q_EMIT wordHeld();
}

void ExplorerPanel::showTakeAway(const TakeAwayReply& reply) {
  if (reply.id != take_away_latest_ || notes_->noteKind() != PanelNotes::Kind::TakeAway) return;
  const fovea::TakeAway& t = reply.result;
  const QString word = QString::fromStdString(t.text).toHtmlEscaped();
  const auto effect = [&](const fovea::Removal& r, double drop) {
    const QString caption = QString::fromStdString(r.caption.text()).toHtmlEscaped();
    return tr("p(%1) %2 → <b>%3</b> (%4%5) · it now says “%6”%7")
        .arg(word)
        .arg(t.p_word, 0, 'f', 2)
        .arg(r.p_word, 0, 'f', 2)
        .arg(drop >= 0 ? tr("−") : tr("+"))
        .arg(tr("%1%").arg(std::abs(drop) * 100, 0, 'f', 0))
        .arg(caption)
        .arg(r.word_still_said ? QString() : tr(" — <b>without “%1”</b>").arg(word));
  };
  const QString control_where = t.control_source >= 0
                                    ? tr("where “%1” looks").arg(QString::fromStdString(t.control_word).toHtmlEscaped())
                                    : tr("far from it");
  notes_->setNote(PanelNotes::Kind::TakeAway, tr("<span style='color:#c03030'>Without what “%1” looks at</span> <span style='color:gray'>(%2 "
                         "cells, shaded):</span> %3<br><span style='color:#2080b0'>Control</span> <span "
                         "style='color:gray'>(%4 cells %5, dashed):</span> %6")
                          .arg(word)
                          .arg(t.attended.cells.size())
                          .arg(effect(t.attended, t.attended_drop()))
                          .arg(t.control.cells.size())
                          .arg(control_where)
                          .arg(effect(t.control, t.control_drop())) +
                      (t.spread ? tr("<br><span style='color:gray'>Note: %1.</span>")
                                      .arg(QString::fromStdString(t.spread_note()).toHtmlEscaped())
                                : QString()));
  view_->setRemoval(to_qimage(t.attended.image), t.attended.cells, t.control.cells);
  updateTakeAwayButton();
}

void ExplorerPanel::clearTakeAway() {
  take_away_latest_ = 0;
  notes_->clearNote(PanelNotes::Kind::TakeAway);
  view_->clearRemoval();
  updateTakeAwayButton();
}

void ExplorerPanel::updateTakeAwayButton() {
  const int word = selectedWord();
  const bool pending = take_away_latest_ != 0 && !view_->hasRemoval();
  take_away_button_->setEnabled(has_caption_ && word >= 0 && word < int(caption_.words.size()) && !pending);
  take_away_button_->setText(view_->hasRemoval() ? tr("Put it back") : tr("Take it away"));
}

QString ExplorerPanel::takeAwayText() const { return notes_->note(PanelNotes::Kind::TakeAway); }

QString ExplorerPanel::unfamiliarText() const { return unfamiliar_->isHidden() ? QString() : unfamiliar_text_; }

QString ExplorerPanel::probeText() const { return notes_->note(PanelNotes::Kind::Probe); }

void ExplorerPanel::showReferences(const QStringList& references, double bleu4, double cider) {
  if (references.isEmpty()) {
    notes_->setReferences({}, {});
    return;
  }
  QString list;
  for (const auto& r : references) list += QStringLiteral("<li>%1</li>").arg(r.toHtmlEscaped());
  const QString tip = tr("The image's reference captions (captions.json beside it):<ul>%1</ul>").arg(list);
  notes_->setReferences(tr("<span style='color:gray'>Reference:</span> %1%2 &nbsp; <span style='color:gray'>this "
                          "caption: BLEU-4 %3 · CIDEr-D %4</span>")
                           .arg(references.first().toHtmlEscaped())
                           .arg(references.size() > 1 ? tr(" <span style='color:gray'>(+%1 more)</span>").arg(references.size() - 1) : QString())
                           .arg(bleu4, 0, 'f', 3)
                           .arg(cider, 0, 'f', 3),
                        tip);
}

QString ExplorerPanel::referencesText() const { return notes_->references(); }

void ExplorerPanel::updateReadout() { showReadout(selectedWord()); }

void ExplorerPanel::showReadout(int i) {
  if (!has_caption_ || i < 0 || i >= int(caption_.words.size())) {
    readout_->clear();
    return;
  }
  const auto& w = caption_.words[i];
  // Sentence probability: sum of the word log-probabilities (+ <end> for scored captions).
  // β only where the model has the gate: a hard model's is always 1.
  const QString beta = caption_.beta_gated ? tr("\u03B2 = %1 &nbsp; ").arg(w.beta, 0, 'f', 2) : QString();
  readout_->setText(tr("%1 <b>%2</b> &nbsp; p(word) = %3 &nbsp; %4peak \u03B1 = %5 &nbsp; "
                       "<span style='color:gray'>caption log p = %6 · %7 ms</span>")
                        .arg(scored_ ? tr("your caption:") : tr("word %1:").arg(i + 1))
                        .arg(QString::fromStdString(w.word).toHtmlEscaped())
                        .arg(std::exp(w.log_prob), 0, 'f', 3)
                        .arg(beta)
                        .arg(w.alpha.empty() ? 0.0 : *std::max_element(w.alpha.begin(), w.alpha.end()), 0, 'f', 3)
                        .arg(caption_.log_prob, 0, 'f', 2)
                        .arg(last_ms_, 0, 'f', 0));
}

}  // namespace fovea::ui
