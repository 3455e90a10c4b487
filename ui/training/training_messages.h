#pragma once
/// The training window's messages: the trainer's log pane, the status line (it changes at every
/// step of a live run) and the progress bar beside it, with the live run's progress put into words.
#include <QObject>
#include <QString>

#include "core/train/train_records.h"

class QPlainTextEdit;
class QProgressBar;
class QStatusBar;

namespace fovea::ui {

class LiveText;

class TrainingMessages : public QObject {
  Q_OBJECT
 public:
  /// The status line and the progress bar go into `bar`; the window places logView() itself.
  TrainingMessages(QStatusBar* bar, QObject* parent);

  QPlainTextEdit* logView() const { return log_; }
  LiveText* statusLine() const { return status_; }
  /// A line in the log pane, with the CLI's option names as the New run dialog's fields.
  void log(const QString& text);
  void setStatus(const QString& text);
  QString statusText() const;
  QString logText() const;
  /// A run starts: the bar shows, at 0.
  void startProgress();
  void hideProgress();
  /// The live run's progress on the bar and the status line (feature caching, pretraining,
  /// captioning steps, or paused).
  void showProgress(const fovea::TrainProgress& p);

 private:
  QPlainTextEdit* log_;
  LiveText* status_;
  QProgressBar* progress_;
};

}  // namespace fovea::ui
