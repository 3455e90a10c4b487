#pragma once
/// The one place where an error's text becomes what a user reads. LibTorch's c10::Error::what()
/// appends "Exception raised from … (most recent call first):" and dozens of "frame #n: …" lines
/// naming the library's own source files; none of that reaches a dialog, a status line or the
/// log. A long message keeps its first lines up front and folds the rest into details, so no
/// dialog outgrows the screen.
#include <QMessageBox>
#include <QString>

#include <exception>

class QWidget;

namespace fovea::ui {

struct UserMessage {
  QString summary;  ///< the first line(s), short enough for a status bar or a dialog's text
  QString details;  ///< the whole message without the backtrace; empty when it is the summary
};

/// `text` without a C++ backtrace or library source locations, split into summary and details.
UserMessage user_message(const QString& text);
/// The whole message without the backtrace, on as many lines as it has (for the log).
QString user_text(const QString& text);
QString user_text(const std::exception& error);
/// The summary alone (for status lines and one-line error bars).
QString user_summary(const QString& text);

/// A message box for `text` that fits the screen: the summary as its text, the rest as details
/// (a scrolling, folded area). Deletes itself when closed; not shown yet.
QMessageBox* make_message_box(QWidget* parent, QMessageBox::Icon icon, const QString& title, const QString& text);
/// make_message_box, shown window-modal without waiting (the caller returns at once).
QMessageBox* show_message_box(QWidget* parent, QMessageBox::Icon icon, const QString& title, const QString& text);

}  // namespace fovea::ui
