#pragma once
/// "New training run": every setting `fovea train` takes, grouped as its --help groups them,
/// each with a one-line explanation, starting from the shipped recipe; one button switches to
/// the paper's exact objective. Produces a fovea::TrainConfig for TrainingRun::start.
#include <QDialog>
#include <QList>

#include <functional>

#include "core/train_config.h"

class QLabel;
class QLineEdit;
class QTabWidget;

namespace fovea::ui {

class NewRunDialog : public QDialog {
  Q_OBJECT
 public:
  /// `runs_root`: where the suggested output folder goes.
  explicit NewRunDialog(const QString& runs_root, QWidget* parent = nullptr);

  fovea::TrainConfig config() const;
  void setConfig(const fovea::TrainConfig& config);
  /// Sets the widget of one setting by its name (the `fovea train` option without "--", e.g.
  /// "epochs", "attention", "out"): for tests and scripted use. False for an unknown name.
  bool setValue(const QString& name, const QVariant& value);
  QVariant value(const QString& name) const;
  QStringList settingNames() const;

 public Q_SLOTS:
  void accept() override;

 private:
  struct Setting {
    QString name;
    QWidget* editor;
    std::function<void(fovea::TrainConfig&)> write;  ///< editor -> config
    std::function<void(const fovea::TrainConfig&)> read;  ///< config -> editor
  };
  QWidget* addPage(const QString& title);
  void addRow(QWidget* page, const QString& label, const QString& explanation, Setting setting);
  void addInt(QWidget* page, const QString& name, const QString& label, const QString& explanation, int lo, int hi,
              std::function<std::int64_t(const fovea::TrainConfig&)> get,
              std::function<void(fovea::TrainConfig&, std::int64_t)> set);
  void addReal(QWidget* page, const QString& name, const QString& label, const QString& explanation, double lo,
               double hi, int decimals, std::function<double(const fovea::TrainConfig&)> get,
               std::function<void(fovea::TrainConfig&, double)> set);
  void addFlag(QWidget* page, const QString& name, const QString& label, const QString& explanation,
               std::function<bool(const fovea::TrainConfig&)> get, std::function<void(fovea::TrainConfig&, bool)> set);
  void addText(QWidget* page, const QString& name, const QString& label, const QString& explanation,
               std::function<std::string(const fovea::TrainConfig&)> get,
               std::function<void(fovea::TrainConfig&, const std::string&)> set);
  void addChoice(QWidget* page, const QString& name, const QString& label, const QString& explanation,
                 const QStringList& choices, std::function<std::string(const fovea::TrainConfig&)> get,
                 std::function<void(fovea::TrainConfig&, const std::string&)> set);
  void buildPages();
  void suggestOutputFolder();
  void updateHardOnly();

  QString runs_root_;
  QTabWidget* tabs_;
  QLabel* error_;
  QList<Setting> settings_;
  fovea::TrainConfig base_;
  QWidget* pending_browse_ = nullptr;  ///< the Browse button the next addText row gets
};

}  // namespace fovea::ui
