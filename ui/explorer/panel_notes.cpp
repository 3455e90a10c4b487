#include "ui/explorer/panel_notes.h"

#include <QLabel>
#include <QScrollArea>
#include <QStackedLayout>
#include <QStringList>

namespace fovea::ui {

namespace {
QLabel* rich_label(const QString& name) {
  auto* label = new QLabel;
  label->setObjectName(name);
  label->setWordWrap(true);
  label->setTextFormat(Qt::RichText);
  label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  return label;
}
}  // namespace

PanelNotes::PanelNotes(QWidget* parent)
    : QWidget(parent), pages_(new QStackedLayout(this)), hint_(rich_label(QStringLiteral("hint"))),
      references_(rich_label(QStringLiteral("references"))), note_scroll_(new QScrollArea),
      note_(rich_label(QStringLiteral("note"))) {
  hint_->setText(tr("<span style='color:gray'>Click or drag on the image: what would the model say looking there? "
                    "“Take it away” removes what the word looks at.</span>"));
  note_scroll_->setWidget(note_);
  note_scroll_->setWidgetResizable(true);
  note_scroll_->setFrameShape(QFrame::NoFrame);
  note_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  pages_->addWidget(hint_);
  pages_->addWidget(references_);
  pages_->addWidget(note_scroll_);
  // Exactly kLines lines of rich text (a QLabel's rich-text lines are not QFontMetrics' lines).
  QLabel measure;
  measure.setFont(note_->font());
  measure.setTextFormat(Qt::RichText);
  measure.setText(QStringList(kLines, QStringLiteral("Xg")).join(QStringLiteral("<br>")));
  setFixedHeight(measure.sizeHint().height());
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  showPage();
}

void PanelNotes::setNote(Kind kind, const QString& rich_text) {
  kind_ = kind;
  note_->setText(rich_text);
  showPage();
}

void PanelNotes::clearNote(Kind kind) {
  if (kind_ != kind || kind == Kind::None) return;
  kind_ = Kind::None;
  note_->clear();
  showPage();
}

QString PanelNotes::note(Kind kind) const { return kind_ == kind && kind != Kind::None ? note_->text() : QString(); }

void PanelNotes::setReferences(const QString& rich_text, const QString& tool_tip) {
  references_text_ = rich_text;
  references_->setText(rich_text);
  references_->setToolTip(tool_tip);
  showPage();
}

void PanelNotes::showPage() {
  if (kind_ != Kind::None) pages_->setCurrentWidget(note_scroll_);
  else if (!references_text_.isEmpty()) pages_->setCurrentWidget(references_);
  else pages_->setCurrentWidget(hint_);
}

void PanelNotes::showReferences(const QStringList& references, double bleu4, double cider) {
  if (references.isEmpty()) {
    setReferences({}, {});
    return;
  }
  QString list;
  for (const auto& r : references) list += QStringLiteral("<li>%1</li>").arg(r.toHtmlEscaped());
  const QString tip = tr("The image's reference captions (captions.json beside it):<ul>%1</ul>").arg(list);
  setReferences(tr("<span style='color:gray'>Reference:</span> %1%2 &nbsp; <span style='color:gray'>this "
                   "caption: BLEU-4 %3 · CIDEr-D %4</span>")
                    .arg(references.first().toHtmlEscaped())
                    .arg(references.size() > 1 ? tr(" <span style='color:gray'>(+%1 more)</span>").arg(references.size() - 1) : QString())
                    .arg(bleu4, 0, 'f', 3)
                    .arg(cider, 0, 'f', 3),
                tip);
}

}  // namespace fovea::ui
