#include "ui/common/live_text.h"

#include <QAbstractTextDocumentLayout>
#include <QEvent>
#include <QPainter>
#include <QTextOption>

#include <algorithm>

namespace fovea::ui {

LiveText::LiveText(int lines, QWidget* parent) : QWidget(parent), lines_(std::max(1, lines)) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  document_.setDocumentMargin(0);
  QTextOption option = document_.defaultTextOption();
  option.setWrapMode(lines_ > 1 ? QTextOption::WrapAtWordBoundaryOrAnywhere : QTextOption::NoWrap);
  document_.setDefaultTextOption(option);
  document_.setDefaultFont(font());
}

void LiveText::setText(const QString& text) {
  if (text == text_) return;
  text_ = text;
  if (Qt::mightBeRichText(text)) document_.setHtml(text);
  else document_.setPlainText(text);
  setToolTip(document_.toPlainText());  // all of it, for when it is cut
  update();  // never updateGeometry(): the size does not depend on the text
}

QSize LiveText::sizeHint() const {
  return {fontMetrics().averageCharWidth() * 40, fontMetrics().lineSpacing() * lines_ + 2};
}

QSize LiveText::minimumSizeHint() const { return {fontMetrics().averageCharWidth() * 8, sizeHint().height()}; }

void LiveText::paintEvent(QPaintEvent*) {
  if (text_.isEmpty()) return;
  QPainter p(this);
  p.setClipRect(rect());
  document_.setTextWidth(lines_ > 1 ? width() : -1);
  QAbstractTextDocumentLayout::PaintContext context;
  context.palette = palette();
  context.palette.setColor(QPalette::Text, palette().color(foregroundRole()));
  const double h = document_.size().height();
  p.save();
  if (lines_ == 1) p.translate(0, std::max(0.0, (height() - h) / 2));  // centred like a QLabel's; more lines: from the top
  document_.documentLayout()->draw(&p, context);
  p.restore();
  const bool cut_off = lines_ == 1 ? document_.size().width() > width() : h > height();
  if (cut_off) {
    // End the last visible line in an ellipsis so it reads as shortened (the tooltip has it all).
    const int w = fontMetrics().horizontalAdvance(QStringLiteral("\u2026 "));
    const int line = std::min(height(), fontMetrics().lineSpacing() + 2);
    const QRect cut(width() - w, height() - line, w, line);
    p.fillRect(cut, palette().color(backgroundRole()));
    p.setPen(palette().color(foregroundRole()));
    p.drawText(cut, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("\u2026"));
  }
}

void LiveText::changeEvent(QEvent* event) {
  if (event->type() == QEvent::FontChange) {
    document_.setDefaultFont(font());
    updateGeometry();
  }
  QWidget::changeEvent(event);
}

}  // namespace fovea::ui
