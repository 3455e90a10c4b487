// A run that failed is listed as failed, with its reason and no Resume (resuming would fail the
// same way), and New run like this is offered instead. A new run that fails before its first
// step leaves nothing behind: no folder, no line in the charts' legends.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/train/run_log.h"
#include "core/train/train_config.h"
#include "core/train/train_settings.h"
#include "ui/charts/training_dashboard.h"
#include "ui/training/run_list.h"
#include "ui/training/training_run.h"
#include "ui/training/training_window.h"

using namespace fovea::ui;

namespace {

const std::string kC10Error =
    "probability tensor contains either `inf`, `nan` or element < 0\n"
    "Exception raised from multinomial at ./aten/src/ATen/native/Distributions.cpp:596 (most recent call first):\n"
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x99 (0x7f1e4b3c2c89 in /usr/lib/libc10.so)\n";

/// A run folder as the trainer leaves it when it stops between steps: config, a logged step, a checkpoint.
QString makeRun(const QString& root, const QString& name) {
  const QString dir = QDir(root).filePath(name);
  QDir().mkpath(dir);
  fovea::TrainConfig config;
  config.model.attention = fovea::AttentionKind::Hard;
  config.out_dir = dir.toStdString();
  QFile c(dir + "/config.json");
  c.open(QIODevice::WriteOnly);
  c.write(QByteArray::fromStdString(fovea::to_json(config).dump()));
  QFile m(dir + "/metrics.jsonl");
  m.open(QIODevice::WriteOnly);
  m.write("{\"kind\": \"train\", \"step\": 1, \"epoch\": 0, \"loss\": 3.5, \"hard\": true}\n");
  QFile k(dir + "/last.ckpt");
  k.open(QIODevice::WriteOnly);
  k.write("not really a checkpoint");
  return QDir::cleanPath(dir);
}

QPushButton* button(const QWidget* w, const QString& text_start) {
  for (auto* b : w->findChildren<QPushButton*>())
    if (b->text().startsWith(text_start)) return b;
  return nullptr;
}

}  // namespace

class RunStatusTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aFailedRunIsListedAsFailedWithItsReasonAndOffersANewRunInsteadOfResume() {
    QTemporaryDir root;
    const QString dir = makeRun(root.path(), "hard-1");
    RunList list;
    list.setRoot(root.path());
    list.setCurrentRun(dir);
    QTRY_VERIFY2(list.summary(dir).contains("stopped, resumable"), qPrintable(list.summary(dir)));  // read on a worker
    QVERIFY(button(&list, "Resume")->isEnabled());

    fovea::record_run_failure(dir.toStdString(), kC10Error);
    list.refresh();
    list.setCurrentRun(dir);
    QTRY_VERIFY(!list.isReading());
    const QString line = list.summary(dir);
    QVERIFY2(line.contains("failed") && !line.contains("stopped, resumable"), qPrintable(line));
    QVERIFY2(line.contains("probability tensor contains"), qPrintable(line));
    QVERIFY2(!line.contains("frame #") && !line.contains(".cpp"), qPrintable(line));
    QVERIFY(!button(&list, "Resume")->isEnabled());
    QVERIFY(button(&list, "New run like this")->isEnabled());

    // Resumed (say with the CLI) the record goes; so does the "failed".
    fovea::clear_run_failure(dir.toStdString());
    list.refresh();
    QTRY_VERIFY2(list.summary(dir).contains("stopped, resumable"), qPrintable(list.summary(dir)));
  }

  void aRunTheTrainerFailsIsRecordedInItsFolder() {
    QTemporaryDir root;
    const QString dir = makeRun(root.path(), "hard-2");
    TrainingWindow window;
    window.setConfirmClose(false);
    window.setRunsRoot(root.path());
    QSignalSpy failed(window.training(), &TrainingRun::failed);
    QVERIFY(window.training()->resume(dir));  // its last.ckpt is no checkpoint: the trainer throws
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
    const auto log = fovea::read_run_log(dir.toStdString(), false);
    QVERIFY(log.failed);
    QVERIFY(!log.failure.empty());
    window.runList()->refresh();
    QTRY_VERIFY2(window.runList()->summary(dir).contains("failed"), qPrintable(window.runList()->summary(dir)));
  }

  void aNewRunThatFailsAtStartLeavesNoGhost() {
    QTemporaryDir root;
    QVERIFY(QDir(root.path()).mkpath("images"));
    TrainingWindow window;
    window.setConfirmClose(false);
    window.setRunsRoot(root.path());
    auto config = fovea::recommended_train_config();
    config.dataset = "karpathy:" + root.filePath("missing.json").toStdString();  // no such file: it fails at start
    config.images_dir = root.filePath("images").toStdString();
    config.device = "cpu";
    const QString dir = QDir::cleanPath(root.filePath("soft-ghost"));
    config.out_dir = dir.toStdString();
    QSignalSpy started(window.training(), &TrainingRun::started);
    QSignalSpy failed(window.training(), &TrainingRun::failed);
    QVERIFY(window.startRun(config));
    QCOMPARE(started.count(), 1);
    QVERIFY(window.dashboard()->hasRun(dir));  // shown as it starts
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
    QVERIFY2(failed.first().at(1).toString().contains("missing.json"), qPrintable(failed.first().at(1).toString()));
    QVERIFY2(!QFileInfo::exists(dir), "the failed run's folder is gone");
    QVERIFY2(!window.dashboard()->hasRun(dir), "no legend names the run");
    QVERIFY(!window.runList()->runs().contains(dir));
    QVERIFY2(window.statusText().contains("missing.json"), qPrintable(window.statusText()));  // the reason stays in view
    QVERIFY2(window.logText().contains("missing.json"), qPrintable(window.logText()));
  }
};

QTEST_MAIN(RunStatusTest)
#include "test_run_status.moc"
