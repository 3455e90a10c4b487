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
QByteArray valLine(int step, double bleu4) {
  fovea::ValidationRecord v;
  v.step = step;
  v.bleu[3] = bleu4;
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
    QCOMPARE(s.best_bleu4, 0.41);

    const QByteArray more = trainLine(101) + valLine(101, 0.38) + trainLine(102);
    append(metrics, more);
    s = reader.update(dir);
    QCOMPARE(s.bytes_read, qint64(more.size()));  // only what was added
    QCOMPARE(s.last_step, 102);
    QCOMPARE(s.best_bleu4, 0.41);  // the best so far, from the first read

    // A line still being written is left for the next read.
    append(metrics, QByteArray("{\"kind\": \"train\", \"st"));
    s = reader.update(dir);
    QCOMPARE(s.bytes_read, qint64(0));
    QCOMPARE(s.last_step, 102);

    // A log cut back (a resumed run drops what followed its checkpoint) is read again from the start.
    append(metrics, trainLine(1) + trainLine(2), QIODevice::Truncate);
    s = reader.update(dir);
    QCOMPARE(s.last_step, 2);
    QCOMPARE(s.best_bleu4, -1.0);

    const auto whole = fovea::read_run_log(dir.toStdString(), false);
    QCOMPARE(s.last_step, whole.last_step());
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
