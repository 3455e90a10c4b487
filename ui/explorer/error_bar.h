#pragma once
/// The explorer's errors, in a bar that floats over the top of the window's content instead of
/// taking a row of its layout: the picture keeps the size the window gives it whether no error,
/// one or three show. Each line says when it happened (an error seen minutes later is not taken
/// for the latest thing done); newest first, three at most. A line goes when what it says no
/// longer applies (withdraw), all go when the bar is closed or the view starts afresh (clear).
#include <QStringList>
#include <QTime>
#include <QWidget>

#include <vector>

class QLabel;

namespace fovea::ui {

class ErrorBar : public QWidget {
  Q_OBJECT
 public:
  /// Floats over `host`'s top edge, across its width, following its resizes.
  explicit ErrorBar(QWidget* host);

  /// Adds `message` (its summary, core/... backtraces removed) as the newest line; a message
  /// already shown moves to the top with the new time.
  void add(const QString& message);
  /// Takes `message` off (it no longer applies); the bar hides when nothing is left.
  void withdraw(const QString& message);
  void clear();
  /// The lines shown, newest first ("hh:mm:ss  text"); empty when hidden.
  QString text() const;
  /// The summaries shown, newest first, without their times.
  QStringList messages() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct Line {
    QString summary, details;
    QTime at;
  };
  void refresh();
  void place();

  QWidget* host_;
  QLabel* label_;
  std::vector<Line> lines_;  ///< newest first
};

}  // namespace fovea::ui
