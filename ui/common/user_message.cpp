#include "ui/common/user_message.h"

#include <QGuiApplication>
#include <QRegularExpression>
#include <QScreen>
#include <QStringList>
#include <QWidget>

namespace fovea::ui {

namespace {

constexpr int kSummaryLines = 3;
constexpr int kSummaryChars = 320;

/// Where a backtrace starts in `text` (c10 puts it after the message; a log may have joined the
/// lines with spaces), or -1.
qsizetype backtrace_start(const QString& text) {
  static const QRegularExpression start(QStringLiteral("Exception raised from |\\(most recent call first\\)|frame #\\d+:?"));
  const auto m = start.match(text);
  return m.hasMatch() ? m.capturedStart() : -1;
}

/// A library's source location ("at ../aten/src/ATen/native/Distributions.cpp:596", "in
/// /usr/lib/x86_64-linux-gnu/libc10.so"): the user's own files (images, runs) stay named.
QString without_source_paths(QString line) {
  static const QRegularExpression source(
      QStringLiteral("\\s*(\\bat\\b|\\bin\\b|\\bfrom\\b)?\\s*\\(?[^\\s()]*[/\\\\][^\\s()]*\\.(cpp|cc|cxx|cu|h|hpp|so(\\.[\\d.]+)?)(:\\d+)?\\)?"));
  return line.remove(source);
}

}  // namespace

QString user_text(const QString& text) {
  QString kept = text;
  if (const auto cut = backtrace_start(kept); cut >= 0) kept.truncate(cut);
  QStringList lines;
  for (const QString& raw : kept.split(QLatin1Char('\n'))) {
    const QString line = without_source_paths(raw).trimmed();
    if (!line.isEmpty()) lines << line;
  }
  if (lines.isEmpty()) return text.trimmed().isEmpty() ? QString() : QObject::tr("unknown error");
  return lines.join(QLatin1Char('\n'));
}

QString user_text(const std::exception& error) { return user_text(QString::fromStdString(error.what())); }

UserMessage user_message(const QString& text) {
  UserMessage m;
  const QString clean = user_text(text);
  const QStringList lines = clean.split(QLatin1Char('\n'));
  QStringList head;
  int chars = 0;
  for (const QString& line : lines) {
    if (head.size() >= kSummaryLines || chars + line.size() > kSummaryChars) break;
    head << line;
    chars += int(line.size());
  }
  if (head.isEmpty()) head << lines.first().left(kSummaryChars - 1) + QStringLiteral("…");
  m.summary = head.join(QLatin1Char('\n'));
  if (m.summary != clean) m.details = clean;
  return m;
}

QString user_summary(const QString& text) {
  const UserMessage m = user_message(text);
  return m.details.isEmpty() ? m.summary : m.summary + QObject::tr(" (more in the details)");
}

QMessageBox* make_message_box(QWidget* parent, QMessageBox::Icon icon, const QString& title, const QString& text) {
  const UserMessage m = user_message(text);
  auto* box = new QMessageBox(icon, title, m.summary, QMessageBox::Ok, parent);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setTextFormat(Qt::PlainText);
  if (!m.details.isEmpty()) box->setDetailedText(m.details);  // folded, and it scrolls
  // A long word (a path) must wrap rather than widen the box past the screen.
  const QScreen* screen = parent ? parent->screen() : QGuiApplication::primaryScreen();
  if (screen) box->setMaximumSize(screen->availableGeometry().size());
  return box;
}

QMessageBox* show_message_box(QWidget* parent, QMessageBox::Icon icon, const QString& title, const QString& text) {
  auto* box = make_message_box(parent, icon, title, text);
  box->setWindowModality(parent ? Qt::WindowModal : Qt::ApplicationModal);
  box->show();
  return box;
}

}  // namespace fovea::ui
