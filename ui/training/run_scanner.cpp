#include "ui/training/run_scanner.h"

#include <QMetaObject>
#include <QPointer>
#include <QThread>

#include <atomic>

#include "ui/training/thread_priority.h"

namespace fovea::ui {

class RunScanner::Worker : public QObject {
 public:
  RunSummaryReader reader;
  std::atomic<bool> stop{false};
};

RunScanner::RunScanner(QObject* parent) : QObject(parent), thread_(new QThread(this)), worker_(new Worker) {
  static const int registered = qRegisterMetaType<fovea::ui::RunSummary>();
  (void)registered;
  thread_->setObjectName("fovea-run-scanner");
  worker_->moveToThread(thread_);
  connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_->start();
  QMetaObject::invokeMethod(worker_, [] { lower_current_thread_priority(kTrainingThreadNice); }, Qt::QueuedConnection);
}

RunScanner::~RunScanner() {
  worker_->stop = true;
  thread_->quit();
  thread_->wait();
}

void RunScanner::scan(const QStringList& dirs) {
  ++pending_;
  Worker* w = worker_;
  QPointer<RunScanner> self(this);
  QMetaObject::invokeMethod(w, [w, dirs, self] {
    for (const QString& dir : dirs) {
      if (w->stop) return;
      const RunSummary s = w->reader.update(dir);
      QMetaObject::invokeMethod(self, [self, s] { if (self) Q_EMIT self->summaryReady(s); }, Qt::QueuedConnection);
    }
    QMetaObject::invokeMethod(self, [self] {
      if (!self) return;
      --self->pending_;
      Q_EMIT self->scanned();
    }, Qt::QueuedConnection);
  }, Qt::QueuedConnection);
}

}  // namespace fovea::ui
