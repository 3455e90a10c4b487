// Training runs from the training window under the offscreen platform: a tiny run started from
// the New run dialog trains (points reach the charts, snapshots reach the gallery), pauses,
// resumes and cancels at a checkpoint that loads; a second run queues; closing the window stops a
// run at a checkpoint that resumes; past runs overlay and their charts export as PNG, SVG and CSV.
#include "tests/ui/training_ui_support.h"

#ifdef FOVEA_BIN
#include <memory>

#include "launch/local_processes.h"  // the launcher fovea-studio's main hands its runs
#endif

using namespace fovea::test_ui;

class TrainingRunsTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  QString runs_;

 private Q_SLOTS:
  void initTestCase() {
    runs_ = make_runs_folder(tmp_);
    QVERIFY(!runs_.isEmpty());
  }

  void theNewRunDialogShowsThePlanDisablesWhatDoesNotApplyAndIgnoresEnter() {
    QSettings().remove("training/last_config");
    NewRunDialog d(runs_);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    // The recipe: captioning steps from the shipped pretrained encoder, before Start.
    QVERIFY2(d.planText().contains("2500 captioning steps (4 epochs of 625)") && !d.planText().contains("pretraining"),
             qPrintable(d.planText()));
    QVERIFY2(d.encoderText().contains("pretrained") && d.encoderText().contains("fashion-encoder.pt"),
             qPrintable(d.encoderText()));
    QVERIFY(!d.findChild<QWidget*>("encoder-widths")->isEnabled());  // the encoder file's blocks
    QVERIFY(d.findChild<QWidget*>("trainable-blocks")->isEnabled());
    QVERIFY2(d.encoderText().contains("first 3 of 8 blocks keep their weights"), qPrintable(d.encoderText()));
    // What does not apply is disabled.
    QVERIFY(d.setValue("attention", "soft"));
    QVERIFY(!d.findChild<QWidget*>("lambda-r")->isEnabled());
    QVERIFY(d.findChild<QWidget*>("beta")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("images")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("finetune-backbone")->isEnabled());  // an encoder file's CNN always trains
    QVERIFY(d.findChild<QWidget*>("pretrain-steps")->isEnabled());
    QVERIFY(d.setValue("dataset", "karpathy:data/dataset_flickr8k.json"));
    QVERIFY(d.findChild<QWidget*>("images")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("pretrain-steps")->isEnabled());  // pretraining needs the built-in scenes
    QVERIFY(d.setValue("dataset", "fashion-scenes"));
    QVERIFY(d.setValue("backbone", "resnet.pt"));
    QVERIFY(d.findChild<QWidget*>("finetune-backbone")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("trainable-blocks")->isEnabled());  // a TorchScript CNN has no blocks to count
    QVERIFY(!d.findChild<QWidget*>("encoder-widths")->isEnabled());
    QVERIFY2(d.encoderText().contains("resnet.pt: file not found"), qPrintable(d.encoderText()));
    QVERIFY(d.setValue("backbone", ""));
    QVERIFY2(d.encoderText().contains("untrained"), qPrintable(d.encoderText()));
    QVERIFY(!d.findChild<QWidget*>("finetune-backbone")->isEnabled());
    QVERIFY(d.findChild<QWidget*>("encoder-widths")->isEnabled());
    QVERIFY(!d.findChild<QWidget*>("trainable-blocks")->isEnabled());  // an untrained CNN trains every block
    QVERIFY(!d.encoderText().contains("keep their weights"));
    QVERIFY(d.setValue("pretrain-steps", 14000));
    QVERIFY(d.findChild<QWidget*>("trainable-blocks")->isEnabled());  // pretrained in the run, then partly frozen
    QVERIFY2(d.planText().contains("14000 pretraining + 2500 captioning steps (4 epochs of 625)"), qPrintable(d.planText()));
    // Quick test: a few hundred steps.
    auto* quick = [&] {
      for (auto* b : d.findChildren<QPushButton*>()) {
        if (b->text() == "Quick test") return b;
      }
      return static_cast<QPushButton*>(nullptr);
    }();
    QVERIFY(quick);
    quick->click();
    QVERIFY2(d.planText().contains("100 pretraining + 200 captioning steps (2 epochs of 100)"), qPrintable(d.planText()));
    // Enter in a field does not start the run.
    auto* lr = d.findChild<QLineEdit*>("lr");
    QVERIFY(lr);
    lr->setFocus();
    QTest::keyClick(lr, Qt::Key_Return);
    QVERIFY(d.isVisible());
    QCOMPARE(d.result(), int(QDialog::Rejected));
    // Accepted settings come back in the next dialog (in a new folder).
    QVERIFY(d.setValue("out", runs_ + "/remembered"));
    QVERIFY(d.setValue("lr", "0.0042"));
    d.findChild<QPushButton*>("start")->click();
    QCOMPARE(d.result(), int(QDialog::Accepted));
    NewRunDialog next(runs_);
    QCOMPARE(next.config().lr, 0.0042);
    QCOMPARE(next.config().max_steps, std::int64_t(300));
    QVERIFY(next.value("out").toString() != runs_ + "/remembered");
    QSettings().remove("training/last_config");
  }

  void aSecondRunIsQueuedAndStartsWhenTheFirstEnds() {
    TrainingWindow w;
    w.setConfirmClose(false);
    w.setRunsRoot(runs_);
    const QString first = runs_ + "/queue-first", second = runs_ + "/queue-second";
    QVERIFY(w.startRun(tiny(first, fovea::AttentionKind::Soft, 40)));
    QVERIFY(w.training()->isRunning());
    QVERIFY(w.startRun(tiny(second, fovea::AttentionKind::Soft, 20)));
    QCOMPARE(w.queuedRuns(), 1);
    QVERIFY(w.logText().contains("Queued"));
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(QString::fromStdString(fovea::model_card_path(second.toStdString()))), kWait);
    QVERIFY(QFileInfo::exists(QString::fromStdString(fovea::model_card_path(first.toStdString()))));
    QCOMPARE(w.queuedRuns(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
  }

  void aRunStartedFromTheDialogTrainsPausesResumesAndCancels() {
    TrainingWindow w;
    w.setConfirmClose(false);
    w.setRunsRoot(runs_);
    w.show();
    const QString out = runs_ + "/from-dialog";
    bool filled = false;
    QTimer::singleShot(0, &w, [&] {
      auto* d = qobject_cast<NewRunDialog*>(QApplication::activeModalWidget());
      QVERIFY(d);
      // One field per training setting: the dialog, the config's JSON (and the CLI, checked in
      // cli_end_to_end.sh) carry the same keys.
      QStringList json_keys;
      const auto j = fovea::to_json(fovea::recommended_train_config());
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() != "version") json_keys << QString::fromStdString(it.key());
      }
      auto dialog_keys = d->settingKeys();
      dialog_keys.sort();
      json_keys.sort();
      QCOMPARE(dialog_keys, json_keys);
      fill_dialog(d, out, 100000);
      filled = true;
      d->findChild<QPushButton*>("start")->click();
    });
    QVERIFY(w.newRun());
    QVERIFY(filled);
    QVERIFY(w.training()->isRunning());

    // Points reach the charts, snapshots reach the gallery.
    auto* dash = w.dashboard();
    QTRY_VERIFY_WITH_TIMEOUT(dash->pointCount(out, "nll") >= 3, kWait);
    QCOMPARE(dash->pointCount(out, "item_accuracy"), 2);  // encoder pretraining first: steps 10, 20
    QCOMPARE(dash->pointCount(out, "held_out_accuracy"), 1);  // and its held-out items, scored at the end
    QTRY_VERIFY_WITH_TIMEOUT(w.gallery()->snapshotCount() >= 2, kWait);
    QCOMPARE(w.gallery()->captions().size(), 4);
    QVERIFY(dash->pointCount(out, "penalty") >= 3);
    QVERIFY(dash->pointCount(out, "entropy") >= 3);
    QCOMPARE(dash->pointCount(out, "reward"), 0);  // soft: no REINFORCE curves
    QVERIFY(w.runList()->runs().contains(out));
    // The run list's line follows the live run (its log on disk lags behind it).
    QTRY_VERIFY_WITH_TIMEOUT(w.runList()->summary(out).contains(QRegularExpression("soft · step [1-9]\\d*( · BLEU-4 [0-9.]+)? · ● training")), kWait);

    // Pause: the step stops moving and a checkpoint holds it.
    w.setPaused(true);
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().paused, kWait);
    const auto paused_at = w.lastProgress().step;
    QTest::qWait(600);
    QCOMPARE(w.lastProgress().step, paused_at);
    QCOMPARE(checkpoint_step(out), paused_at);
    QVERIFY(w.statusText().contains("Paused"));
    QTRY_VERIFY_WITH_TIMEOUT(w.runList()->summary(out).contains("paused"), kWait);  // not "● training"

    // Resume: it moves on.
    w.setPaused(false);
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().step > paused_at + 5, kWait);

    // Cancel: it stops at a checkpoint that loads and captions.
    w.cancelRun();
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
    QVERIFY(w.logText().contains("Stopped at step"));
    QTRY_VERIFY2(w.runList()->summary(out).contains("stopped, resumable"), qPrintable(w.runList()->summary(out)));
    const auto stopped_at = checkpoint_step(out);
    QVERIFY(stopped_at > paused_at + 5);
    // The list, the status bar and the checkpoint agree on the step (not the last logged one).
    QVERIFY2(w.runList()->summary(out).contains(QString("step %1 ").arg(stopped_at)), qPrintable(w.runList()->summary(out)));
    QVERIFY2(w.statusText().contains(QString::number(stopped_at)), qPrintable(w.statusText()));
    fovea::Captioner captioner(fovea::last_checkpoint_path(out.toStdString()));
    fovea::RgbImage image(32, 32);
    QVERIFY(captioner.caption(image).grid_h == 4);

    // Resume it from the run list: it continues from its checkpoint, the curve stays one curve.
    w.runList()->setCurrentRun(out);
    QVERIFY(w.resumeRun(out));
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().step > stopped_at, kWait);
    QTRY_VERIFY_WITH_TIMEOUT(dash->points(out, "nll").last().x() > double(stopped_at), kWait);
    w.cancelRun();
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
    const auto nll = dash->points(out, "nll");
    for (int i = 1; i < nll.size(); ++i) QVERIFY2(nll[i].x() > nll[i - 1].x(), "steps increase along the curve");
  }

  void folderInTheRunListIsTheRootNewRunsGoTo() {
    const QString other = tmp_.filePath("other-runs");
    QVERIFY(QDir().mkpath(other));
    TrainingWindow w;
    w.setRunsRoot(runs_);
    auto* list = w.runList();
    Q_EMIT list->rootChosen(other);  // what Folder… does once a folder is picked
    QCOMPARE(w.runsRoot(), QDir(other).absolutePath());
    QCOMPARE(list->root(), QDir(other).absolutePath());
    QTRY_COMPARE(QSettings().value("training/runs_root").toString(), QDir(other).absolutePath());  // written on a worker
    TrainingWindow next;  // remembered for the next window
    QCOMPARE(next.runsRoot(), QDir(other).absolutePath());
    w.setRunsRoot(runs_);
  }

#ifdef FOVEA_BIN
  void aRunOfTwoProcessesIsOneRunOnTheDashboards() {
    // Settings only (what `fovea train` options can give the second process), fp32.
    auto c = fovea::recommended_train_config();
    const std::vector<std::pair<const char*, const char*>> settings{
        {"image_size", "32"}, {"encoder_widths", "8,16,32"}, {"embed_dim", "16"}, {"attention_dim", "16"},
        {"hidden_dim", "48"}, {"dropout", "0"}, {"train_scenes", "32"}, {"val_scenes", "8"}, {"batch", "16"},
        {"lr", "0.01"}, {"lr_decay", "1"}, {"epochs", "1000"}, {"patience", "1000"}, {"max_steps", "20"},
        {"pretrain_steps", "0"}, {"backbone", "none"}, {"device", "cpu"},
        {"precision", "fp32"}};
    for (const auto& [key, value] : settings) {
      const auto& s = fovea::train_setting(key);
      s.set(c, fovea::parse_setting(s, value));
    }
    const QString out = runs_ + "/two-processes";
    c.out_dir = out.toStdString();

    NewRunDialog dialog(runs_);
    auto* field = dialog.findChild<QSpinBox*>("processes");
    QVERIFY(field != nullptr);
    QCOMPARE(dialog.processes(), 1);
    dialog.setProcesses(2);
    QCOMPARE(field->value(), 2);

    TrainingWindow w;
    w.setConfirmClose(false);
    w.setRunsRoot(runs_);
    w.training()->setLauncher([] { return std::make_unique<fovea::FoveaToolLauncher>(FOVEA_BIN); });
    QVERIFY(w.startRun(c, 2));
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
    QVERIFY2(w.logText().contains("2 processes, 8 images each a step"), qPrintable(w.logText()));
    QVERIFY2(!w.logText().contains("error"), qPrintable(w.logText()));
    QCOMPARE(w.dashboard()->pointCount(out, "nll"), 3);  // steps 1, 10, 20, once
    const auto log = fovea::read_run_log(out.toStdString());
    QCOMPARE(int(log.train.size()), 3);
    QCOMPARE(checkpoint_step(out), 20);
    QVERIFY(w.close());
  }
#endif

  void closingTheWindowStopsTheRunAtACheckpoint() {
    const QString out = runs_ + "/closed";
    {
      TrainingWindow w;
      w.setConfirmClose(false);
      w.setRunsRoot(runs_);
      w.show();
      QVERIFY(w.startRun(tiny(out, fovea::AttentionKind::Hard, 100000)));
      QTRY_VERIFY_WITH_TIMEOUT(w.dashboard()->pointCount(out, "reward") >= 3, kWait);
      QSignalSpy closed(&w, &TrainingWindow::closedAfterStop);
      // close() returns at once (the GUI thread never waits for the run): the window hides, and the
      // run, still stopping, ends through the event loop, which then closes the window.
      QVERIFY(!w.close());
      QVERIFY(w.isHidden());
      QVERIFY(w.training()->isRunning());
      QVERIFY(w.isStoppingToClose());
      QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
      QCOMPARE(closed.count(), 1);
      QVERIFY(!w.isStoppingToClose());
    }
    const auto step = checkpoint_step(out);
    QVERIFY(step > 0);
    // A new window resumes it from its folder.
    TrainingWindow w2;
    w2.setConfirmClose(false);
    w2.setRunsRoot(runs_);
    QVERIFY(w2.runList()->runs().contains(out));
    QTRY_VERIFY(w2.runList()->summary(out).contains("stopped, resumable"));  // read on a worker thread
    QVERIFY(w2.resumeRun(out));
    QTRY_VERIFY_WITH_TIMEOUT(w2.lastProgress().step > step, kWait);
    QVERIFY(w2.dashboard()->pointCount(out, "baseline") >= 3);  // the curve before the stop came back from disk
    QVERIFY(!w2.close());  // still training: it hides, stops, then closes
    QTRY_VERIFY_WITH_TIMEOUT(!w2.training()->isRunning() && !w2.isStoppingToClose(), kWait);
  }

  void pastRunsOverlayAndExport() {
    const QString a = runs_ + "/past-soft", b = runs_ + "/past-hard";
    auto with_pretraining = tiny(a, fovea::AttentionKind::Soft, 60);  // 20 pretraining steps, 40 captioning
    with_pretraining.pretrain_steps = 20;
    fovea::train(with_pretraining);
    fovea::train(tiny(b, fovea::AttentionKind::Hard, 40));
    // A crash mid-write leaves half a line: skipped, the rest reads.
    QFile metrics(QString::fromStdString(fovea::metrics_path(a.toStdString())));
    QVERIFY(metrics.open(QIODevice::Append));
    metrics.write("{\"kind\": \"train\", \"ste");
    metrics.close();

    TrainingWindow w;
    w.setRunsRoot(runs_);
    QVERIFY(w.openRun(a));
    QVERIFY(w.openRun(b));
    auto* dash = w.dashboard();
    // Read on threads of their own: the charts fill when the logs arrive.
    QTRY_COMPARE(dash->pointCount(a, "nll"), 5);  // steps 1, 10, 20, 30, 40
    QTRY_COMPARE(dash->pointCount(b, "nll"), 5);
    QVERIFY(w.logText().contains("skipped 1"));
    QCOMPARE(dash->pointCount(a, "reward"), 0);
    QCOMPARE(dash->pointCount(b, "reward"), 5);
    QCOMPARE(dash->pointCount(a, "item_accuracy"), 2);  // pretraining steps 10, 20
    QCOMPARE(dash->pointCount(b, "item_accuracy"), 0);
    QCOMPARE(dash->pointCount(a, "held_out_accuracy"), 1);
    QVERIFY(dash->pointCount(a, "bleu4") >= 1);
    QCOMPARE(dash->chart("loss")->seriesKeys().size(), 2);
    QVERIFY(w.runList()->checkedRuns().contains(a) && w.runList()->checkedRuns().contains(b));
    QCOMPARE(w.runList()->currentRun(), b);  // the last opened, whichever log arrived first
    TrainingDashboard fresh;  // colours too follow the order opened (b's shorter log may arrive first)
    fresh.addRun(QStringLiteral("first"), QStringLiteral("first"), false);
    fresh.addRun(QStringLiteral("second"), QStringLiteral("second"), false);
    QCOMPARE(dash->runColour(a), fresh.runColour(QStringLiteral("first")));
    QCOMPARE(dash->runColour(b), fresh.runColour(QStringLiteral("second")));
    QTRY_VERIFY(w.gallery()->snapshotCount() == 1);  // step 0 of the last opened run (then every 100 steps)

    // Unticking a run removes its curves; ticked again it comes back in its colour.
    const QColor colour_a = dash->runColour(a);
    QVERIFY(colour_a != dash->runColour(b));
    w.runList()->setChecked(a, false);
    QCOMPARE(dash->chart("loss")->seriesKeys().size(), 1);
    w.runList()->setChecked(a, true);
    QTRY_COMPARE(dash->chart("loss")->seriesKeys().size(), 2);  // read on a thread of its own
    QCOMPARE(dash->runColour(a), colour_a);

    const QString dir = tmp_.filePath("charts");
    const auto files = w.exportCharts(dir);
    QCOMPARE(files.size(), 3 * dash->chartNames().size());
    QVERIFY(!QImage(dir + "/loss.png").isNull());
    QVERIFY(QSvgRenderer(dir + "/loss.svg").isValid());
    const auto csv = lines_of(dir + "/loss.csv");
    QCOMPARE(csv.value(0), QString("series,step,value"));
    QCOMPARE(csv.size(), 1 + 5 + 5);
    QCOMPARE(csv.filter(QRegularExpression("^past-soft,")).size(), 5);
    QCOMPARE(csv.filter(QRegularExpression("^past-hard,")).size(), 5);
    const auto first = csv.value(1).split(',');
    QCOMPARE(first.value(1).toInt(), 1);
    QVERIFY(first.value(2).toDouble() > 0);
    const auto pretraining = lines_of(dir + "/pretraining.csv");
    QCOMPARE(pretraining.value(0), QString("series,pretraining step,value"));
    QCOMPARE(pretraining.size(), 1 + 2 + 1);  // the held-out items' dot too
  }

  void aBadRunFolderIsExplained() {
    TrainingWindow w;
    QVERIFY(!w.openRun(tmp_.filePath("nothing-here")));
    QVERIFY(w.statusText().contains("nothing-here"));
    QVERIFY(w.statusText().contains("metrics.jsonl"));
  }
};


QTEST_MAIN(TrainingRunsTest)
#include "test_training_runs.moc"
