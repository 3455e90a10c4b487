#pragma once
/// "New training run": one field per training setting (core/train/train_settings.h), on one page per
/// group as `fovea train --help` groups them, each with its one line of help. It opens with the
/// last run's settings (or the shipped recipe the first time); presets switch to the recipe, the
/// paper's exact objective or a quick test of a few minutes. Fields that do not apply to the
/// other settings are disabled, the run's steps and (from past runs' speed) its time are shown
/// before Start, and Enter never starts a run. Produces a fovea::TrainConfig for TrainingRun::start.
#include <QDialog>
#include <QList>

#include "core/train/train_config.h"
#include "ui/training/run_summary.h"

#include <memory>

class QGridLayout;
class QHBoxLayout;
class QLabel;
class QSpinBox;
class QTabWidget;

namespace fovea {
struct TrainSetting;
}

namespace fovea::ui {

class RunEstimate;

class NewRunDialog : public QDialog {
  Q_OBJECT
 public:
  /// `runs_root`: where the suggested output folder goes, and the past runs that time this one.
  explicit NewRunDialog(const QString& runs_root, QWidget* parent = nullptr);
  ~NewRunDialog() override;

  /// Fills the fields from `config` (e.g. another run's) with a new output folder.
  void startFrom(const fovea::TrainConfig& config);
  /// The past runs that time this one (the run list's summaries; none: no time estimate).
  void setPastRuns(const QList<RunSummary>& runs);
  /// A run is training: Start becomes "Queue run" (it starts when the other ends).
  void setQueueing(bool queueing);
  /// The quick-test preset: the current model on a small budget (a few minutes on a laptop CPU).
  static void applyQuickTest(fovea::TrainConfig& config);
  /// The plan and time estimate shown above the buttons.
  QString planText() const;
  /// "Encoder: ...": what the run's encoder starts from (the backbone field's file described, or
  /// the init-from checkpoint's weights).
  QString encoderText() const;

  /// The settings as the fields hold them; throws std::invalid_argument naming a field that
  /// does not parse.
  fovea::TrainConfig config() const;
  /// How many processes train the run (Runtime page): not a setting of the run, which means the
  /// same with any number.
  int processes() const;
  void setProcesses(int processes);
  void setConfig(const fovea::TrainConfig& config);
  /// Sets the field of one setting by its `fovea train` option name without "--" (e.g. "epochs",
  /// "init-from"): for tests and scripted use. False for an unknown name.
  bool setValue(const QString& name, const QVariant& value);
  QVariant value(const QString& name) const;
  /// The settings' keys as the config JSON writes them (init_from, ...), in the dialog's order.
  QStringList settingKeys() const;
  /// Why Start was refused (fields named as the dialog labels them), empty when it was not.
  QString errorText() const;

 public Q_SLOTS:
  void accept() override;

 protected:
  /// Enter in a field does nothing (QDialog would press Start, which may begin hours of training).
  void keyPressEvent(QKeyEvent* event) override;

 private:
  struct Field {
    const fovea::TrainSetting* setting;
    QWidget* editor;
  };
  /// Writes the field's value into `c`; throws naming the setting when it does not parse.
  void applyField(const Field& f, fovea::TrainConfig& c) const;
  QWidget* addPage(const QString& title);
  void addField(QWidget* page, const fovea::TrainSetting& setting);
  /// The Runtime page's "Processes" row.
  void addProcessesField(QGridLayout* grid);
  /// The "Start from:" row: a button per preset (recommended, paper's, self-critical, quick test).
  QHBoxLayout* buildPresets();
  /// A tab per group of the training settings table, a field per setting.
  void buildPages();
  /// A Browse… button for the settings that name a file or folder; null for the others.
  QWidget* browseButton(const QString& name);
  void suggestOutputFolder();
  /// The dialog's settings with `preset` applied (the paper's objective, self-critical training).
  void applyPreset(void (*preset)(fovea::TrainConfig&));
  /// Enables the fields that apply: REINFORCE settings for hard attention, β for soft, the
  /// images folder for datasets on disk, fine-tuning with a backbone, pretraining where it runs.
  void updateApplicable();
  void updatePlan();

  QString runs_root_;
  QTabWidget* tabs_;
  QLabel* error_;
  QLabel* plan_;
  QLabel* encoder_;
  QList<Field> fields_;
  QString suggested_out_;  ///< the output folder the dialog named itself (renamed with attention until edited)
  QSpinBox* processes_ = nullptr;
  std::unique_ptr<RunEstimate> estimate_;
};

}  // namespace fovea::ui
