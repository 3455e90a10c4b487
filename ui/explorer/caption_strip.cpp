#include "ui/explorer/caption_strip.h"

#include <QCoreApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>

#include <algorithm>
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

namespace {

/// The strip's keys: Tab steps through the chips (Shift+Tab back), then on to the next widget;
/// focus that arrives by Tab starts at the first chip (by Shift+Tab at the last); the arrows move
/// the focus; Enter or Space selects the focused chip's word as a click does (Space is not the
/// player's key there).
class ChipKeys : public QObject {
 public:
  explicit ChipKeys(CaptionStrip* strip) : QObject(strip), strip_(strip) { strip->installEventFilter(this); }

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched != strip_) return false;
    const int focus = strip_->focusedChip(), count = strip_->count();
    switch (event->type()) {
      case QEvent::FocusIn: {
        const auto reason = static_cast<QFocusEvent*>(event)->reason();
        if (count > 0) {
          strip_->focusChip(reason == Qt::TabFocusReason       ? 0
                            : reason == Qt::BacktabFocusReason ? count - 1
                                                               : std::max(strip_->current(), 0));
        }
        return false;
      }
      case QEvent::FocusOut:
        strip_->update();  // the ring goes
        return false;
      case QEvent::ShortcutOverride:
        if (selects(static_cast<QKeyEvent*>(event)) && focus >= 0) return event->accept(), true;
        return false;
      case QEvent::KeyPress: {
        const auto* key = static_cast<QKeyEvent*>(event);
        const int to = key->key() == Qt::Key_Tab || key->key() == Qt::Key_Right  ? focus + 1
                       : key->key() == Qt::Key_Backtab || key->key() == Qt::Key_Left ? focus - 1
                                                                                      : -2;
        if (focus >= 0 && selects(key)) {
          Q_EMIT strip_->wordClicked(focus);
          return true;
        }
        if (to == -2 || focus < 0) return false;
        const bool tab = key->key() == Qt::Key_Tab || key->key() == Qt::Key_Backtab;
        if (tab && (to < 0 || to >= count)) return false;  // past the ends: on to the next widget
        strip_->focusChip(std::clamp(to, 0, count - 1));
        return true;
      }
      default:
        return false;
    }
  }

 private:
  static bool selects(const QKeyEvent* key) {
    return key->modifiers() == Qt::NoModifier &&
           (key->key() == Qt::Key_Space || key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter);
  }
  CaptionStrip* strip_;
};

}  // namespace

CaptionStrip::CaptionStrip(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  new ChipKeys(this);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void CaptionStrip::setCaption(const fovea::CaptionResult& caption, bool scored) {
  words_ = caption.words;
  scored_ = scored;
  beta_gated_ = caption.beta_gated;
  finished_ = caption.finished;
  message_.clear();
  current_ = words_.empty() ? -1 : std::min(std::max(current_, 0), int(words_.size()) - 1);
  if (focus_ >= int(words_.size())) focus_ = int(words_.size()) - 1;
  rects_ = layoutChips(width());
  fitRows();
  update();
}

void CaptionStrip::clear() {
  words_.clear();
  rects_.clear();
  current_ = hovered_ = focus_ = -1;  // a preview of a word that is gone ends without a signal
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
  // The keyboard's chip: a ring outside it, in the highlight colour, while the strip has the focus.
  if (hasFocus() && focus_ >= 0 && focus_ < int(rects_.size())) {
    p.setPen(QPen(highlight, 2, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(QRectF(rects_[std::size_t(focus_)]).adjusted(-2, -2, 2, 2), 6, 6);
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

void CaptionStrip::focusChip(int index) {
  focus_ = index;
  update();
  if (index < 0 || index >= int(rects_.size())) return;
  // Inside the panel's scrolling caption area: bring the chip's row into view.
  for (QWidget* p = parentWidget(); p != nullptr; p = p->parentWidget()) {
    if (auto* area = qobject_cast<QScrollArea*>(p)) {
      const QPoint c = mapTo(area->widget(), rects_[std::size_t(index)].center());
      area->ensureVisible(c.x(), c.y(), rects_[std::size_t(index)].width() / 2 + 4, rects_[std::size_t(index)].height() / 2 + 4);
      break;
    }
  }
}

}  // namespace fovea::ui
