#include "ui/explorer/take_away_line.h"

#include <QPushButton>

#include <cmath>

#include "ui/common/attention_view.h"
#include "ui/common/image_convert.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/model_session.h"
#include "ui/explorer/panel_notes.h"

namespace fovea::ui {

namespace {
/// What taking away `r`'s cells did to `word` (HTML-escaped): its probability before and after,
/// the caption it leaves, and whether the word is gone from it.
QString removal_effect(const fovea::TakeAway& t, const QString& word, const fovea::Removal& r, double drop) {
  const QString caption = QString::fromStdString(r.caption.text()).toHtmlEscaped();
  return TakeAwayLine::tr("p(%1) %2 → <b>%3</b> (%4%5) · it now says “%6”%7")
      .arg(word)
      .arg(t.p_word, 0, 'f', 2)
      .arg(r.p_word, 0, 'f', 2)
      .arg(drop >= 0 ? TakeAwayLine::tr("−") : TakeAwayLine::tr("+"))
      .arg(TakeAwayLine::tr("%1%").arg(std::abs(drop) * 100, 0, 'f', 0))
      .arg(caption)
      .arg(r.word_still_said ? QString() : TakeAwayLine::tr(" — <b>without “%1”</b>").arg(word));
}
}  // namespace

TakeAwayLine::TakeAwayLine(const PanelParts& parts, QObject* parent)
    : QObject(parent), parts_(parts), button_(new QPushButton(tr("Take it away"))) {
  button_->setObjectName("takeAwayButton");
  button_->setToolTip(tr("Remove what the model looks at for this word (and, as a control, as much "
                         "elsewhere), then ask it again: does the word go?"));
  button_->setEnabled(false);
  connect(parts_.session, &ModelSession::takeAwayReady, this, &TakeAwayLine::show);
  connect(button_, &QPushButton::clicked, this, [this] {
    if (parts_.view->hasRemoval()) clear();  // "Put it back"
    else takeAway();
  });
}

void TakeAwayLine::takeAway() {
  const PanelShown& shown = *parts_.shown;
  const int word = parts_.strip->current();
  parts_.view->setWordIndex(word);
  if (shown.image.isNull() || !parts_.session->hasModel() || !shown.hasWord(word)) return;
  parts_.notes->setNote(PanelNotes::Kind::TakeAway,
                        tr("<span style='color:gray'>Taking away what “%1” looks at, and a control…</span>")
                            .arg(QString::fromStdString(shown.caption.words[std::size_t(word)].word).toHtmlEscaped()));
  latest_ = parts_.session->takeAway(shown.image, shown.caption, word, shown.options);
  updateButton();
  Q_EMIT held();
}

void TakeAwayLine::show(const TakeAwayReply& reply) {
  if (reply.id != latest_ || parts_.notes->noteKind() != PanelNotes::Kind::TakeAway) return;
  const fovea::TakeAway& t = reply.result;
  const QString word = QString::fromStdString(t.text).toHtmlEscaped();
  const QString control_where = t.control_source >= 0
                                    ? tr("where “%1” looks").arg(QString::fromStdString(t.control_word).toHtmlEscaped())
                                    : tr("far from it");
  parts_.notes->setNote(PanelNotes::Kind::TakeAway,
                        tr("<span style='color:#c03030'>Without what “%1” looks at</span> <span style='color:gray'>(%2 "
                           "cells, shaded):</span> %3<br><span style='color:#2080b0'>Control</span> <span "
                           "style='color:gray'>(%4 cells %5, dashed):</span> %6")
                                .arg(word)
                                .arg(t.attended.cells.size())
                                .arg(removal_effect(t, word, t.attended, t.attended_drop()))
                                .arg(t.control.cells.size())
                                .arg(control_where)
                                .arg(removal_effect(t, word, t.control, t.control_drop())) +
                            (t.spread ? tr("<br><span style='color:gray'>Note: %1.</span>")
                                            .arg(QString::fromStdString(t.spread_note()).toHtmlEscaped())
                                      : QString()));
  parts_.view->setRemoval(to_qimage(t.attended.image), t.attended.cells, t.control.cells);
  updateButton();
}

QString TakeAwayLine::text() const { return parts_.notes->note(PanelNotes::Kind::TakeAway); }

void TakeAwayLine::clear() {
  latest_ = 0;
  parts_.notes->clearNote(PanelNotes::Kind::TakeAway);
  parts_.view->clearRemoval();
  updateButton();
}

void TakeAwayLine::updateButton() {
  const bool pending = latest_ != 0 && !parts_.view->hasRemoval();
  button_->setEnabled(parts_.shown->hasWord(parts_.strip->current()) && !pending);
  button_->setText(parts_.view->hasRemoval() ? tr("Put it back") : tr("Take it away"));
}

bool TakeAwayLine::showFailure(quint64 id, const QString& error) {
  if (error.isEmpty() || id != latest_) return false;
  parts_.notes->setNote(PanelNotes::Kind::TakeAway,
                        tr("<span style='color:gray'>Not taken away:</span> %1").arg(error.toHtmlEscaped()));
  updateButton();
  return true;
}

}  // namespace fovea::ui
