#include "ui/export/job_progress.h"

#include <QCoreApplication>
#include <QPointer>

#include <algorithm>

namespace fovea::ui {

JobProgress::JobProgress(const QString& title, const QString& label, long long total, QWidget* parent)
    : QProgressDialog(label, tr("Cancel"), 0, int(std::max(0LL, total)), parent) {
  setObjectName(QStringLiteral("job-progress"));
  setWindowTitle(title);
  setWindowModality(Qt::NonModal);  // the studio stays usable (a video plays on) while it runs
  setMinimumDuration(0);
  setAutoClose(false);
  setAutoReset(false);
  setValue(0);
  show();  // at once: a job that will take minutes says so from its start
  connect(this, &QProgressDialog::canceled, this, [this] {
    stop_->store(true);
    setLabelText(tr("Stopping…"));
  });
}

std::function<bool(long long)> JobProgress::reporter() {
  QPointer<JobProgress> self(this);
  auto stop = stop_;
  return [self, stop](long long done) {
    QMetaObject::invokeMethod(QCoreApplication::instance(), [self, done] {
      if (self && !self->wasCanceled() && self->maximum() > 0) self->setValue(int(std::min<long long>(done, self->maximum())));
    }, Qt::QueuedConnection);
    return !stop->load();
  };
}

}  // namespace fovea::ui
