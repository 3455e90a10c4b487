#include "ui/explorer/caption_strip.h"

#include <QCoreApplication>
#include <QMouseEvent>
#include <QPainter>

#include <cmath>

namespace fovea::ui {
namespace {
constexpr int kPad = 6, kGap = 4;

QFont word_font(const QFont& base) {
  QFont f = base;
  f.setPointSizeF(base.pointSizeF() * 1.25);
  f.setBold(true);
  return f;
}
QFont detail_font(const QFont& base) {
  QFont f = base;
  f.setPointSizeF(base.pointSizeF() * 0.8);
  return f;
}
/// p(word), and β where the model has the gate (a hard model's β is always 1: not shown).
/// A typed word the model's vocabulary lacks: scored as <unk>, its p is not the word's.
bool unknown_to_model(const fovea::WordAttention& w) {
  const std::string tag = " <unk>";
  return w.word.size() > tag.size() && w.word.compare(w.word.size() - tag.size(), tag.size(), tag) == 0;
}

QString detail(const fovea::WordAttention& w, bool beta_gated) {
  if (unknown_to_model(w)) return QCoreApplication::translate("CaptionStrip", "not a word it knows");
  const QString p = QStringLiteral("p %1").arg(std::exp(w.log_prob), 0, 'f', 2);
  return beta_gated ? p + QStringLiteral(" \u00B7 \u03B2 %1").arg(w.beta, 0, 'f', 2) : p;
}
}  // namespace

CaptionStrip::CaptionStrip(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void CaptionStrip::setCaption(const fovea::CaptionResult& caption, bool scored) {
  words_ = caption.words;
  scored_ = scored;
  beta_gated_ = caption.beta_gated;
  finished_ = caption.finished;
  message_.clear();
  current_ = words_.empty() ? -1 : std::min(std::max(current_, 0), int(words_.size()) - 1);
  rects_ = layoutChips(width());
  fitRows();
  update();
}

void CaptionStrip::clear() {
  words_.clear();
  rects_.clear();
  current_ = hovered_ = -1;  // a preview of a word that is gone ends without a signal
  fitRows();
  update();
}

void CaptionStrip::fitRows() {
  // Every row of chips shows: a window short of room shrinks the image above, not the caption
  // (layouts give a height-for-width widget less than it asks for when space runs out).
  const int need = heightForWidth(width());
  if (minimumHeight() != need) setMinimumHeight(need);
  updateGeometry();
}

void CaptionStrip::setMessage(const QString& text) {
  message_ = text;
  update();
}

void CaptionStrip::setCurrent(int index) {
  if (index == current_) return;
  current_ = index;
  update();
}

QString CaptionStrip::word(int i) const {
  return i >= 0 && i < count() ? QString::fromStdString(words_[i].word) : QString();
}

QString CaptionStrip::wordDetail(int i) const {
  return i >= 0 && i < count() ? detail(words_[std::size_t(i)], beta_gated_) : QString();
}

QRect CaptionStrip::wordRect(int i) const { return i >= 0 && i < int(rects_.size()) ? rects_[i] : QRect(); }

int CaptionStrip::wordAt(const QPoint& pos) const {
  for (int i = 0; i < int(rects_.size()); ++i)
    if (rects_[i].contains(pos)) return i;
  return -1;
}

std::vector<QRect> CaptionStrip::layoutChips(int width) const {
  const QFontMetrics wm(word_font(font())), dm(detail_font(font()));
  const int h = wm.height() + dm.height() + 2 * kPad;
  std::vector<QRect> rects;
  int x = kGap, y = kGap;
  for (const auto& w : words_) {
    const int cw = std::max(wm.horizontalAdvance(QString::fromStdString(w.word)),
                            dm.horizontalAdvance(detail(w, beta_gated_))) +
                   2 * kPad;
    if (x > kGap && x + cw > width - kGap) {
      x = kGap;
      y += h + kGap;
    }
    rects.emplace_back(x, y, cw, h);
    x += cw + kGap;
  }
  return rects;
}

int CaptionStrip::heightForWidth(int width) const {
  const auto r = layoutChips(width);
  const QFontMetrics wm(word_font(font())), dm(detail_font(font()));
  const int one = wm.height() + dm.height() + 2 * kPad + 2 * kGap;
  return r.empty() ? one : std::max(one, r.back().bottom() + kGap + 1);
}

int CaptionStrip::heightOfRows(int rows) const {
  const QFontMetrics wm(word_font(font())), dm(detail_font(font()));
  const int row = wm.height() + dm.height() + 2 * kPad;
  return rows * row + (rows + 1) * kGap + 1;
}

QSize CaptionStrip::sizeHint() const { return {600, heightForWidth(600)}; }

void CaptionStrip::resizeEvent(QResizeEvent*) {
  rects_ = layoutChips(width());
  fitRows();
}

void CaptionStrip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  if (words_.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect().adjusted(kGap, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft,
               message_.isEmpty() ? tr("No caption yet") : message_);
    return;
  }
  const QFont wf = word_font(font()), df = detail_font(font());
  const QFontMetrics wm(wf);
  const QColor highlight = palette().color(QPalette::Highlight);
  for (int i = 0; i < int(words_.size()) && i < int(rects_.size()); ++i) {
    const QRect r = rects_[i];
    const double prob = std::exp(words_[i].log_prob);
    // Scored captions: tint each chip by how probable the model finds the word (red low, green high).
    QColor fill = scored_ ? QColor::fromHsvF(0.33 * std::clamp(prob, 0.0, 1.0), 0.35, 1.0) : palette().color(QPalette::Button);
    if (i == hovered_ && i != current_) fill = fill.darker(110);
    p.setPen(i == current_ ? QPen(highlight, 2.5) : QPen(palette().color(QPalette::Mid), 1));
    p.setBrush(i == current_ ? (scored_ ? fill : highlight.lighter(185)) : fill);
    p.drawRoundedRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5);
    p.setPen(scored_ ? QColor(20, 20, 20) : palette().color(QPalette::ButtonText));
    p.setFont(wf);
    QString text = QString::fromStdString(words_[i].word);
    if (unknown_to_model(words_[i])) text.chop(6);  // " <unk>": the detail line says it
    p.drawText(QRect(r.left(), r.top() + kPad, r.width(), wm.height()), Qt::AlignHCenter, text);
    p.setFont(df);
    p.setPen(scored_ ? QColor(70, 70, 70) : palette().color(QPalette::PlaceholderText));
    p.drawText(QRect(r.left(), r.top() + kPad + wm.height(), r.width(), r.height() - kPad - wm.height()), Qt::AlignHCenter,
               detail(words_[i], beta_gated_));
  }
  if (!finished_ && !rects_.empty()) {
    p.setFont(df);
    p.setPen(palette().color(QPalette::PlaceholderText));
    const QRect last = rects_.back();
    p.drawText(QPoint(last.right() + kGap * 2, last.center().y()), tr("(no <end> within the length limit)"));
  }
}

void CaptionStrip::mousePressEvent(QMouseEvent* event) {
  const int i = wordAt(event->position().toPoint());
  if (i >= 0) Q_EMIT wordClicked(i);  // the panel selects it (and clears what belonged to the old word)
}

void CaptionStrip::mouseMoveEvent(QMouseEvent* event) {
  const int i = wordAt(event->position().toPoint());
  if (i != hovered_) {
    hovered_ = i;
    update();
    Q_EMIT wordHovered(i);
  }
}

void CaptionStrip::leaveEvent(QEvent* event) {
  QWidget::leaveEvent(event);
  if (hovered_ < 0) return;
  hovered_ = -1;  // the mouse is gone: no chip stays highlighted, the preview ends
  update();
  Q_EMIT wordHovered(-1);
}

}  // namespace fovea::ui
