#pragma once
/// "New training run": one field per training setting (core/train/train_settings.h), on one page per
/// group as `fovea train --help` groups them, each with its one line of help, starting from the
/// shipped recipe; one button switches to the paper's exact objective. Produces a
/// fovea::TrainConfig for TrainingRun::start.
#include <QDialog>
#include <QList>

#include "core/train/train_config.h"

class QLabel;
class QTabWidget;

namespace fovea {
struct TrainSetting;
}

namespace fovea::ui {

class NewRunDialog : public QDialog {
  Q_OBJECT
 public:
  /// `runs_root`: where the suggested output folder goes.
  explicit NewRunDialog(const QString& runs_root, QWidget* parent = nullptr);

  /// The settings as the fields hold them; throws std::invalid_argument naming a field that
  /// does not parse.
  fovea::TrainConfig config() const;
  void setConfig(const fovea::TrainConfig& config);
  /// Sets the field of one setting by its `fovea train` option name without "--" (e.g. "epochs",
  /// "init-from"): for tests and scripted use. False for an unknown name.
  bool setValue(const QString& name, const QVariant& value);
  QVariant value(const QString& name) const;
  /// The settings' keys as the config JSON writes them (init_from, ...), in the dialog's order.
  QStringList settingKeys() const;

 public Q_SLOTS:
  void accept() override;

 private:
  struct Field {
    const fovea::TrainSetting* setting;
    QWidget* editor;
  };
  QWidget* addPage(const QString& title);
  void addField(QWidget* page, const fovea::TrainSetting& setting);
  /// A Browse… button for the settings that name a file or folder; null for the others.
  QWidget* browseButton(const QString& name);
  void suggestOutputFolder();
  void updateHardOnly();

  QString runs_root_;
  QTabWidget* tabs_;
  QLabel* error_;
  QList<Field> fields_;
};

}  // namespace fovea::ui
