#include "ui/explorer/webcam_source.h"

#include <QPointer>
#include <QThread>

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

namespace fovea::ui {

WebcamSource::WebcamSource(QObject* parent) : QObject(parent) {}

WebcamSource::~WebcamSource() { stop(); }

void WebcamSource::start(int device) {
  stop();
  auto flag = std::make_shared<std::atomic<bool>>(false);
  stop_flag_ = flag;
  QPointer<WebcamSource> self(this);
  thread_ = QThread::create([self, flag, device] {
    cv::VideoCapture cap;
    bool opened = false;
    try {
      opened = cap.open(device, cv::CAP_ANY) && cap.isOpened();
    } catch (const cv::Exception&) {
      opened = false;
    }
    if (!opened) {
      const QString message = QObject::tr("No camera could be opened (video device %1). Connect a webcam, or open images instead.").arg(device);
      QMetaObject::invokeMethod(self, [self, message] { if (self) Q_EMIT self->failed(message); }, Qt::QueuedConnection);
      return;
    }
    cv::Mat frame;
    int misses = 0;
    while (!flag->load()) {
      if (!cap.read(frame) || frame.empty()) {
        if (++misses > 30) {
          QMetaObject::invokeMethod(self, [self] { if (self) Q_EMIT self->failed(QObject::tr("The camera stopped delivering frames.")); },
                                    Qt::QueuedConnection);
          return;
        }
        QThread::msleep(30);
        continue;
      }
      misses = 0;
      QImage image(frame.data, frame.cols, frame.rows, int(frame.step), QImage::Format_BGR888);
      QImage copy = image.copy();
      QMetaObject::invokeMethod(self, [self, copy] { if (self) Q_EMIT self->frameReady(copy); }, Qt::QueuedConnection);
      QThread::msleep(66);
    }
  });
  connect(thread_, &QThread::finished, this, [this] {
    if (thread_) {
      thread_->deleteLater();
      thread_ = nullptr;
    }
    Q_EMIT stopped();
  });
  thread_->start();
}

void WebcamSource::stop() {
  if (!thread_) return;
  stop_flag_->store(true);
  QThread* t = thread_;
  thread_ = nullptr;
  t->wait();
  t->deleteLater();
}

}  // namespace fovea::ui
