#pragma once
/// The runs of a runs folder (each a folder with metrics.jsonl, config and checkpoints), with a
/// checkbox per run to overlay its curves, a one-line summary each, and the actions that act on
/// the selected run: open its best checkpoint in the caption explorer, resume it.
#include <QString>
#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace fovea::ui {

class RunList : public QWidget {
  Q_OBJECT
 public:
  explicit RunList(QWidget* parent = nullptr);

  void setRoot(const QString& root);
  QString root() const { return root_; }
  /// Rescans the root; check states and the selection survive.
  void refresh();
  QStringList runs() const;
  QStringList checkedRuns() const;
  void setChecked(const QString& dir, bool checked);
  QString currentRun() const;
  void setCurrentRun(const QString& dir);
  /// The run training now (marked in the list; it cannot be resumed twice).
  void setLiveRun(const QString& dir);
  /// What the live run's line says between rescans ("soft · step 340 · BLEU-4 0.812"): its log on
  /// disk lags behind (and holds no step at all while the encoder pretrains).
  /// The live run's line in the list ("soft · step 120"), and whether it is paused.
  void setLiveProgress(const QString& line, bool paused = false);
  QString summary(const QString& dir) const;

 Q_SIGNALS:
  void runToggled(const QString& dir, bool checked);
  void currentRunChanged(const QString& dir);
  void openCheckpointRequested(const QString& checkpoint);
  void resumeRequested(const QString& dir);
  /// The user picked another runs folder with Folder… (the window then uses it for new runs too).
  void rootChosen(const QString& root);
  /// "New run like this": a new run starting from this run's settings.
  void newRunLikeRequested(const QString& dir);

 private:
  QListWidgetItem* item(const QString& dir) const;
  void describe(QListWidgetItem* item) const;
  void updateButtons();
  void chooseRoot();

  QString root_, live_, live_line_;
  bool live_paused_ = false;
  QLabel* root_label_;
  QListWidget* list_;
  QPushButton* open_best_;
  QPushButton* resume_;
  QPushButton* like_;
};

}  // namespace fovea::ui
