// The training window as a user meets it (offscreen): legends that tell runs apart, a queued run
// listed and removable, Resume enabled in the toolbar and the run list alike while paused, a
// reopened window that ticks a run, ticks the run selected, and hides the hard-only charts for
// soft runs.
#include <QListWidget>
#include <QMessageBox>
#include <QToolBar>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>

#include "tests/ui/training_ui_support.h"

using namespace fovea::test_ui;

namespace {

QPushButton* button(const QWidget* in, const QString& text) {
  for (auto* b : in->findChildren<QPushButton*>()) {
    if (b->text() == text) return b;
  }
  return nullptr;
}

QAction* toolbar_action(QMainWindow* w, const QString& text) {
  for (auto* a : w->findChild<QToolBar*>("training-toolbar")->actions()) {
    if (a->text() == text) return a;
  }
  return nullptr;
}

bool listed(RunList* list, const QString& dir) {
  auto* items = list->findChild<QListWidget*>("runs");
  for (int i = 0; i < items->count(); ++i) {
    if (items->item(i)->data(Qt::UserRole).toString() == dir) return true;
  }
  return false;
}

}  // namespace

class TrainingSnagsTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;

  /// Shows `w` with its runs in `root` (closing it asks nothing), starts a long soft run in `out`
  /// and waits for its first step.
  static void trainALongRun(TrainingWindow& w, const QString& root, const QString& out) {
    w.setConfirmClose(false);
    w.setRunsRoot(root);
    w.show();
    QVERIFY(w.startRun(tiny(out, fovea::AttentionKind::Soft, 100000)));
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().step >= 1, kWait);
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(tmp_.isValid());
  }

  /// The legend labels of the loss chart, one per run shown.
  static QStringList legendLabels(TrainingDashboard& dashboard) {
    auto* view = dashboard.chart("loss")->findChild<QChartView*>();
    QStringList labels;
    if (!view) return labels;
    for (auto* marker : view->chart()->legend()->markers()) {
      if (marker->isVisible()) labels << marker->label();
    }
    return labels;
  }

  /// The legend labels of `dashboard`'s loss chart once it shows `runs` (hard where the name says
  /// so): its charts are placed hidden and shown one at a time, and a shown chart's legend is laid
  /// out after it (either slowly under load).
  static QStringList legendOfRuns(TrainingDashboard& dashboard, const QStringList& runs) {
    dashboard.resize(1100, 800);
    dashboard.show();
    for (const auto& n : runs) {
      dashboard.addRun("/runs/" + n, n, n.startsWith("hard"));
      dashboard.chart("loss")->append("/runs/" + n + "|nll", 1, 2.0);  // listed once it has a point
    }
    [&] {
      QTRY_VERIFY_WITH_TIMEOUT(dashboard.chart("loss")->isVisible() && legendLabels(dashboard).size() == runs.size(),
                               20000);
    }();
    return legendLabels(dashboard);
  }

  void legendsNameRunsByWhatTellsThemApart() {
    // Four runs of one afternoon, two of each attention: the time and the attention tell them apart.
    TrainingDashboard dashboard;
    const QStringList names{"hard-20261129-083012", "hard-20261129-084512", "soft-20261129-083040", "soft-20261129-090412"};
    QCOMPARE(legendOfRuns(dashboard, names), (QStringList{"hard 08:30:12", "hard 08:45:12", "soft 08:30:40", "soft 09:04:12"}));
    // Runs of two days: the date too.
    TrainingDashboard days;
    QCOMPARE(legendOfRuns(days, {"soft-20261127-143012", "soft-20261127-143047", "soft-20261128-143012"}),
             (QStringList{"soft 11-27 14:30:12", "soft 11-27 14:30:47", "soft 11-28 14:30:12"}));
    // A learning rate in the names keeps its exponent's dash.
    TrainingDashboard rates;
    QCOMPARE(legendOfRuns(rates, {"sc-greedy-lr-2e-4", "sc-greedy-lr-5e-5"}), (QStringList{"2e-4", "5e-5"}));
    // Names of the user's own that do not split alike: the start, an ellipsis and the end that differs.
    TrainingDashboard own;
    const QStringList mine{"baseline-with-a-long-name-lr-0.01", "baseline-with-a-long-name-lr-0.001", "tuned"};
    const QStringList labels = legendOfRuns(own, mine);
    QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), 3);
    for (const auto& label : labels) QVERIFY2(label.size() <= 16, qPrintable(label));
    for (const auto& n : mine) {  // each keeps the end of its name: what tells it apart
      QVERIFY2(std::any_of(labels.begin(), labels.end(),
                           [&](const QString& l) { return n.endsWith(l.mid(l.indexOf(QChar(0x2026)) + 1)); }),
               qPrintable(n + ": " + labels.join(", ")));
    }
    // Exports keep the full names.
    const QString csv = tmp_.filePath("loss.csv");
    QVERIFY(dashboard.chart("loss")->exports()->csv(csv));
    QVERIFY(lines_of(csv).value(1).startsWith(names[0] + ","));
  }

  void aQueuedRunIsListedAndCanBeRemoved() {
    const QString root = tmp_.filePath("queue");
    TrainingWindow w;
    w.setConfirmClose(false);
    w.setRunsRoot(root);
    const QString first = root + "/first", second = root + "/second";
    QVERIFY(w.startRun(tiny(first, fovea::AttentionKind::Soft, 100000)));
    QVERIFY(w.startRun(tiny(second, fovea::AttentionKind::Soft, 20)));
    QCOMPARE(w.queuedRuns(), 1);
    QVERIFY(listed(w.runList(), second));
    QVERIFY2(w.runList()->summary(second).contains("queued"), qPrintable(w.runList()->summary(second)));
    w.runList()->setCurrentRun(second);
    auto* remove = button(w.runList(), "Remove from queue");
    QVERIFY(remove && remove->isEnabled());
    QVERIFY2(w.gallery()->note().contains("second is queued"), qPrintable(w.gallery()->note()));  // not a blank column
    remove->click();
    QCOMPARE(w.queuedRuns(), 0);
    QVERIFY(!listed(w.runList(), second));
    QVERIFY2(w.statusText().contains("0 queued") && !w.statusText().contains("1 queued"), qPrintable(w.statusText()));
    w.cancelRun();
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
    QTest::qWait(200);  // a queued run would start on the next turn
    QVERIFY(!w.training()->isRunning());
    QVERIFY(!QFileInfo::exists(second));
  }

  void stopAsksFirstAndTheRunIsCalledStoppedNotInterrupted() {
    const QString root = tmp_.filePath("stop"), out = root + "/soft-stop";
    TrainingWindow w;
    trainALongRun(w, root, out);
    if (QTest::currentTestFailed()) return;
    QAction* stop = toolbar_action(&w, "Stop");
    QVERIFY(stop && stop->isEnabled());
    // Answers the question Stop asks with `choice`, once it is asked; what it said, in `asked`.
    QString asked;
    const auto answer = [&asked](const QString& choice) {
      QTimer::singleShot(0, [&asked, choice] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        asked = box->text();
        if (QPushButton* b = button(box, choice)) b->click();
      });
    };
    answer("Keep training");
    stop->trigger();
    QVERIFY2(asked.contains("soft-stop") && asked.contains("Resume"), qPrintable(asked));
    const auto step = w.lastProgress().step;
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().step > step, kWait);  // it goes on
    QVERIFY(w.training()->isRunning());
    answer("Stop the run");
    stop->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(w.runList()->summary(out).contains("stopped, resumable"), kWait);
    QVERIFY2(!w.runList()->summary(out).contains("interrupted"), qPrintable(w.runList()->summary(out)));
  }

  void theTrainersAdviceNamesTheDialogsFieldsNotCommandLineOptions() {
    TrainingWindow w;
    w.setRunsRoot(tmp_.filePath("advice"));
    Q_EMIT w.training()->message("the loss was not finite at step 40; a lower --lr helps, or a lower --lambda-r");
    QVERIFY2(!w.logText().contains("--lr") && !w.logText().contains("--lambda-r"), qPrintable(w.logText()));
    QVERIFY2(w.logText().contains("a lower “Lr” helps, or a lower “Lambda r”"), qPrintable(w.logText()));
  }

  void whilePausedTheToolbarAndTheRunListBothOfferResume() {
    const QString root = tmp_.filePath("pause"), out = root + "/paused";
    TrainingWindow w;
    trainALongRun(w, root, out);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(w.runList()->currentRun(), out);
    auto* resume = button(w.runList(), "Resume");
    QVERIFY(resume);
    QVERIFY(!resume->isEnabled());  // training: nothing to resume
    auto* pause = toolbar_action(&w, "Pause");
    QVERIFY(pause);
    pause->trigger();
    QCOMPARE(pause->text(), QString("Resume"));
    QVERIFY(pause->isEnabled());
    QTRY_VERIFY(resume->isEnabled());  // the same as the toolbar's
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().paused, kWait);
    QVERIFY(resume->isEnabled());
    const auto paused_at = w.lastProgress().step;
    resume->click();  // the run list's Resume goes on, and the toolbar agrees
    QCOMPARE(pause->text(), QString("Pause"));
    QTRY_VERIFY_WITH_TIMEOUT(w.lastProgress().step > paused_at, kWait);
    QVERIFY(!resume->isEnabled());
    w.cancelRun();
    QTRY_VERIFY_WITH_TIMEOUT(!w.training()->isRunning(), kWait);
  }

  void aReopenedWindowTicksARunAndSelectingOneTicksIt() {
    const QString root = tmp_.filePath("reopen"), a = root + "/soft-a", b = root + "/soft-b";
    fovea::train(tiny(a, fovea::AttentionKind::Soft, 20));
    fovea::train(tiny(b, fovea::AttentionKind::Soft, 20));
    TrainingWindow w;
    w.setRunsRoot(root);
    w.show();
    QTRY_COMPARE_WITH_TIMEOUT(w.runList()->checkedRuns().size(), 1, kWait);  // not an empty dashboard
    const QString ticked = w.runList()->checkedRuns().first();
    QTRY_VERIFY_WITH_TIMEOUT(w.dashboard()->pointCount(ticked, "nll") > 0, kWait);
    QVERIFY(!w.dashboard()->shownCharts().contains("reinforce"));  // soft runs: no REINFORCE charts
    QVERIFY(!w.dashboard()->shownCharts().contains("reward_var"));
    const QString other = ticked == a ? b : a;
    w.runList()->setCurrentRun(other);  // selecting a run shows it
    QTRY_VERIFY(w.runList()->checkedRuns().contains(other));
    QTRY_VERIFY_WITH_TIMEOUT(w.dashboard()->pointCount(other, "nll") > 0, kWait);
  }
};

QTEST_MAIN(TrainingSnagsTest)
#include "test_training_snags.moc"
