#include "ui/explorer/probe_line.h"

#include <QStringList>

#include <algorithm>

#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/model_session.h"
#include "ui/explorer/panel_notes.h"

namespace fovea::ui {

namespace {
/// The first `count` of `words` with their probabilities, the first in bold.
QString probe_words(const std::vector<fovea::ProbeWord>& words, int count) {
  QStringList parts;
  for (int i = 0; i < std::min(count, int(words.size())); ++i)
    parts << (i == 0 ? QStringLiteral("<b>%1</b> %2") : QStringLiteral("%1 %2"))
                 .arg(QString::fromStdString(words[std::size_t(i)].word).toHtmlEscaped())
                 .arg(words[std::size_t(i)].p, 0, 'f', 2);
  return parts.join(QStringLiteral(" · "));
}
}  // namespace

ProbeLine::ProbeLine(const PanelParts& parts, QObject* parent) : QObject(parent), parts_(parts) {
  connect(parts_.session, &ModelSession::probeReady, this, &ProbeLine::show);
  connect(parts_.view, &AttentionView::regionSelected, this, &ProbeLine::probe);
}

void ProbeLine::probe(const fovea::ProbeRegion& region) {
  const PanelShown& shown = *parts_.shown;
  if (shown.image.isNull() || !parts_.session->hasModel() || !shown.has_caption) return;
  QStringList before;
  const int current = parts_.strip->current();
  parts_.view->setWordIndex(current);  // a word previewed under the pointer is not the one probed
  for (int i = 0; i < std::max(0, current) && i < int(shown.caption.words.size()); ++i)
    before << QString::fromStdString(shown.caption.words[std::size_t(i)].word);
  prefix_ = before.join(QLatin1Char(' '));
  parts_.notes->setNote(PanelNotes::Kind::Probe, tr("<span style='color:gray'>Looking there…</span>"));
  latest_ = parts_.session->probe(shown.image, region, prefix_);
  region_ = region;
  Q_EMIT held();
}

void ProbeLine::show(const ProbeReply& reply) {
  if (reply.id != latest_ || parts_.notes->noteKind() != PanelNotes::Kind::Probe) return;
  const QString where = prefix_.isEmpty() ? tr("as the first word") : tr("after “%1”").arg(prefix_.toHtmlEscaped());
  parts_.notes->setNote(PanelNotes::Kind::Probe,
                        tr("<span style='color:gray'>Looking there %1:</span> %2 &nbsp; <span "
                           "style='color:gray'>with its own attention: %3</span>")
                            .arg(where, probe_words(reply.result.words, 5), probe_words(reply.result.own_words, 2)));
  parts_.view->setProbe(reply.result.alpha, region_);
}

QString ProbeLine::text() const { return parts_.notes->note(PanelNotes::Kind::Probe); }

void ProbeLine::clear() {
  latest_ = 0;
  parts_.notes->clearNote(PanelNotes::Kind::Probe);
  parts_.view->clearProbe();
}

bool ProbeLine::showFailure(quint64 id, const QString& error) {
  if (error.isEmpty() || id != latest_) return false;
  parts_.notes->setNote(PanelNotes::Kind::Probe,
                        tr("<span style='color:gray'>Probe failed:</span> %1").arg(error.toHtmlEscaped()));
  return true;
}

}  // namespace fovea::ui
