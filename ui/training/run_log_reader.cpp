#include "ui/training/run_log_reader.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QThread>

#include <exception>
#include <memory>

#include "ui/common/user_message.h"
#include "ui/training/thread_priority.h"

namespace fovea::ui {

void read_run_log_async(QObject* context, const QString& dir, bool with_samples,
                        std::function<void(const fovea::RunLog&)> done, std::function<void(const QString&)> failed,
                        std::function<void(fovea::RunLog&)> on_worker) {
  QPointer<QObject> guard(context);
  QThread* thread = QThread::create([guard, dir, with_samples, done, failed, on_worker] {
    // Niced as the scanner: on a busy machine the GUI thread is scheduled first.
    lower_current_thread_priority(kTrainingThreadNice);
    auto log = std::make_shared<fovea::RunLog>();
    QString error;
    try {
      *log = fovea::read_run_log(dir.toStdString(), with_samples);
      if (on_worker) on_worker(*log);
    } catch (const std::exception& e) {
      error = user_text(e);
    }
    // Through the application object (alive until the end), checking `context` on the GUI thread.
    QMetaObject::invokeMethod(QCoreApplication::instance(), [guard, log, error, done, failed] {
      if (!guard) return;
      if (error.isEmpty()) done(*log);
      else if (failed) failed(error);
    }, Qt::QueuedConnection);
  });
  thread->setObjectName("fovea-run-reader");
  QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  thread->start(QThread::LowPriority);
}

}  // namespace fovea::ui
