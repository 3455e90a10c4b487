#include "ui/explorer/error_bar.h"

#include <QEvent>
#include <QGraphicsDropShadowEffect>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

#include <algorithm>

#include "ui/common/user_message.h"

namespace fovea::ui {

namespace {
constexpr int kMaxLines = 3;
constexpr int kMargin = 6;  ///< from the host's edges
}  // namespace

ErrorBar::ErrorBar(QWidget* host) : QWidget(host), host_(host), label_(new QLabel) {
  setObjectName(QStringLiteral("errorBar"));
  setAttribute(Qt::WA_StyledBackground);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 4, 4);
  label_->setWordWrap(true);
  label_->setTextFormat(Qt::PlainText);
  label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* close = new QToolButton;
  close->setText(QStringLiteral("\u2715"));
  close->setToolTip(tr("Close (the errors are gone)"));
  close->setAutoRaise(true);
  connect(close, &QToolButton::clicked, this, &ErrorBar::clear);
  layout->addWidget(label_, 1);
  layout->addWidget(close, 0, Qt::AlignTop);
  setStyleSheet(QStringLiteral("#errorBar { background:#fde2e1; border:1px solid #e8a8a6; border-radius:4px; }"
                               "QLabel { color:#7a1010; }"));
  // Over the picture, a shadow sets it apart from what it covers.
  auto* shadow = new QGraphicsDropShadowEffect(this);
  shadow->setBlurRadius(10);
  shadow->setOffset(0, 2);
  shadow->setColor(QColor(0, 0, 0, 70));
  setGraphicsEffect(shadow);
  host_->installEventFilter(this);
  hide();
}

void ErrorBar::add(const QString& message) {
  if (message.isEmpty()) return;
  const UserMessage m = user_message(message);
  lines_.erase(std::remove_if(lines_.begin(), lines_.end(), [&](const Line& l) { return l.summary == m.summary; }),
               lines_.end());
  lines_.insert(lines_.begin(), Line{m.summary, m.details.isEmpty() ? m.summary : m.details, QTime::currentTime()});
  if (int(lines_.size()) > kMaxLines) lines_.resize(kMaxLines);
  refresh();
}

void ErrorBar::withdraw(const QString& message) {
  if (message.isEmpty()) return;
  const QString summary = user_message(message).summary;
  const auto before = lines_.size();
  lines_.erase(std::remove_if(lines_.begin(), lines_.end(), [&](const Line& l) { return l.summary == summary; }),
               lines_.end());
  if (lines_.size() != before) refresh();
}

void ErrorBar::clear() {
  lines_.clear();
  refresh();
}

QString ErrorBar::text() const { return isHidden() ? QString() : label_->text(); }

QStringList ErrorBar::messages() const {
  QStringList out;
  for (const Line& l : lines_) out << l.summary;
  return out;
}

void ErrorBar::refresh() {
  QStringList shown;
  for (const Line& l : lines_) shown << QStringLiteral("%1  %2").arg(l.at.toString(QStringLiteral("HH:mm:ss")), l.summary);
  label_->setText(shown.join(QLatin1Char('\n')));
  setToolTip(lines_.empty() ? QString() : lines_.front().details);
  setVisible(!lines_.empty());
  if (!lines_.empty()) place();
}

void ErrorBar::place() {
  const int width = std::max(0, host_->width() - 2 * kMargin);
  setGeometry(kMargin, kMargin, width, heightForWidth(width));
  raise();
}

bool ErrorBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == host_ && event->type() == QEvent::Resize && !isHidden()) place();
  return QWidget::eventFilter(watched, event);
}

}  // namespace fovea::ui
