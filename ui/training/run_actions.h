#pragma once
/// The buttons under the run list that act on the selected run: open its best checkpoint in the
/// caption explorer, resume it (a stopped run from its last checkpoint, or the live run while it
/// is paused), open New run with its settings, take a queued run out of the queue. Each is
/// offered only where it can work: a finished run has nothing to resume, a failed one would fail
/// again (New run like this is offered instead, to change the setting that failed it).
#include <QString>
#include <QWidget>

class QPushButton;

namespace fovea::ui {

struct RunSummary;

class RunActions : public QWidget {
  Q_OBJECT
 public:
  /// The selected run, as the run list knows it.
  struct Selection {
    QString dir;  ///< empty: none selected
    bool live = false;         ///< the run training now
    bool live_paused = false;  ///< ...and it is paused
    bool queued = false;       ///< waiting for the live run to end
    bool any_queued = false;   ///< some run is queued (Remove from queue shows)
    const RunSummary* summary = nullptr;  ///< its summary, once read
  };

  explicit RunActions(QWidget* parent = nullptr);
  /// Offers the actions that can work on `selection`.
  void offerFor(const Selection& selection);

 Q_SIGNALS:
  void openCheckpointRequested(const QString& checkpoint);
  /// Resume: an interrupted run from its checkpoint, or the live run when it is paused.
  void resumeRequested(const QString& dir);
  /// "Remove from queue" on a queued run.
  void unqueueRequested(const QString& dir);
  /// "New run like this": a new run starting from this run's settings.
  void newRunLikeRequested(const QString& dir);

 private:
  QString dir_;
  bool queued_ = false;
  QPushButton* open_best_;
  QPushButton* resume_;
  QPushButton* like_;
  QPushButton* unqueue_;
};

}  // namespace fovea::ui
