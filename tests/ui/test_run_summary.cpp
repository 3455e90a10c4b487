// The run list's summaries are read incrementally on a worker: a second read
// of a log reads only the lines added since, a log cut back by a resumed run is read again, and
// the figures agree with reading the whole folder (core/train/run_log.h).
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/train/run_log.h"
#include "core/train/train_records.h"
#include "ui/training/run_scanner.h"
#include "ui/training/run_summary.h"

using namespace fovea::ui;

namespace {

/// Lines as the trainer writes them (core/train/train_records.h).
QByteArray trainLine(int step) {
  fovea::TrainRecord r;
  r.step = step;
  r.loss = 3.5;
  r.elapsed_s = step * 0.5;
  return QByteArray::fromStdString(fovea::to_json(r).dump() + "\n");
}
/// A validation as a run logged before validations named their metric (none improved).
QByteArray valLine(int step, double bleu4) {
  fovea::ValidationRecord v;
  v.step = step;
  v.bleu[3] = bleu4;
  auto j = fovea::to_json(v);
  j.erase("improved");
  j.erase("metric");
  return QByteArray::fromStdString(j.dump() + "\n");
}
/// A validation as the trainer logs it now: what best.ckpt is chosen by, and whether it improved.
QByteArray namedValLine(int step, double bleu4, double cider, const std::string& metric, bool improved) {
  fovea::ValidationRecord v;
  v.step = step;
  v.bleu[3] = bleu4;
  v.cider = cider;
  v.metric = metric;
  v.improved = improved;
  return QByteArray::fromStdString(fovea::to_json(v).dump() + "\n");
}
void append(const QString& path, const QByteArray& bytes, QIODevice::OpenMode mode = QIODevice::Append) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | mode));
  f.write(bytes);
}

}  // namespace

class RunSummaryTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aSecondReadReadsOnlyTheNewLines() {
    QTemporaryDir root;
    const QString dir = root.filePath("soft-1"), metrics = dir + "/metrics.jsonl";
    QDir().mkpath(dir);
    QByteArray first;
    for (int s = 1; s <= 100; ++s) first += trainLine(s);
    first += valLine(100, 0.41);
    append(metrics, first, QIODevice::Truncate);
    RunSummaryReader reader;
    RunSummary s = reader.update(dir);
    QCOMPARE(s.bytes_read, qint64(first.size()));
    QCOMPARE(s.last_step, 100);
    QCOMPARE(s.best.metric, std::string("BLEU-4"));
    QCOMPARE(s.best.score, 0.41);

    const QByteArray more = trainLine(101) + valLine(101, 0.38) + trainLine(102);
    append(metrics, more);
    s = reader.update(dir);
    QCOMPARE(s.bytes_read, qint64(more.size()));  // only what was added
    QCOMPARE(s.last_step, 102);
    QCOMPARE(s.best.score, 0.41);  // the best so far, from the first read

    // A line still being written is left for the next read.
    append(metrics, QByteArray("{\"kind\": \"train\", \"st"));
    s = reader.update(dir);
    QCOMPARE(s.bytes_read, qint64(0));
    QCOMPARE(s.last_step, 102);

    // A log cut back (a resumed run drops what followed its checkpoint) is read again from the start.
    append(metrics, trainLine(1) + trainLine(2), QIODevice::Truncate);
    s = reader.update(dir);
    QCOMPARE(s.last_step, 2);
    QVERIFY(s.best.metric.empty());
    QCOMPARE(best_validation_text(s.best), QString());

    const auto whole = fovea::read_run_log(dir.toStdString(), false);
    QCOMPARE(s.last_step, whole.last_step());
  }

  // A self-critical run's best.ckpt is chosen by CIDEr-D: its line says so, with that score,
  // not the best BLEU-4 of any validation (here a later one that did not improve by CIDEr-D).
  void aRunIsListedByTheMetricItsBestCheckpointIsChosenBy() {
    QTemporaryDir root;
    const QString dir = root.filePath("self-critical"), metrics = dir + "/metrics.jsonl";
    QDir().mkpath(dir);
    const QByteArray lines = trainLine(50) + namedValLine(50, 0.30, 0.80, "CIDEr-D", true) +
                             namedValLine(100, 0.35, 0.75, "CIDEr-D", false);
    append(metrics, lines, QIODevice::Truncate);
    RunSummaryReader reader;
    RunSummary s = reader.update(dir);
    QCOMPARE(s.best.metric, std::string("CIDEr-D"));
    QCOMPARE(s.best.score, 0.80);
    QCOMPARE(best_validation_text(s.best), QStringLiteral(" · CIDEr-D 0.800"));
    const auto whole = fovea::read_run_log(dir.toStdString(), false).best();
    QCOMPARE(whole.metric, s.best.metric);
    QCOMPARE(whole.score, s.best.score);

    // A run whose BLEU-4 first stayed below 0.01 is chosen by BLEU-4 once it moves.
    append(metrics, namedValLine(200, 0.2, 0.6, "BLEU-4", true));
    s = reader.update(dir);
    QCOMPARE(best_validation_text(s.best), QStringLiteral(" · BLEU-4 0.200"));
  }

  void theScannerDeliversSummariesFromItsWorker() {
    QTemporaryDir root;
    QStringList dirs;
    for (int r = 0; r < 3; ++r) {
      const QString dir = root.filePath(QStringLiteral("run-%1").arg(r));
      QDir().mkpath(dir);
      append(dir + "/metrics.jsonl", trainLine(10 * (r + 1)), QIODevice::Truncate);
      dirs << dir;
    }
    dirs << root.filePath("no-such-run");
    RunScanner scanner;
    QList<RunSummary> got;
    connect(&scanner, &RunScanner::summaryReady, this, [&got](const RunSummary& s) { got << s; });
    scanner.scan(dirs);
    QCOMPARE(got.size(), 0);  // nothing arrives until the event loop delivers it
    QTRY_COMPARE(got.size(), 4);
    QCOMPARE(got[2].last_step, 30);
    QVERIFY(!got[3].readable);
    QVERIFY(got[3].error.contains("no-such-run"));
  }
};

QTEST_MAIN(RunSummaryTest)
#include "test_run_summary.moc"
