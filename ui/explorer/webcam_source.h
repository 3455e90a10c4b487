#pragma once
/// Webcam frames for live captioning: OpenCV's VideoCapture read on a worker thread, frames
/// delivered to the GUI thread as QImages (about 15 per second). No camera: failed(message).
#include <QImage>
#include <QObject>

#include <atomic>
#include <memory>

class QThread;

namespace fovea::ui {

class WebcamSource : public QObject {
  Q_OBJECT
 public:
  explicit WebcamSource(QObject* parent = nullptr);
  ~WebcamSource() override;

  void start(int device = 0);
  void stop();
  bool isRunning() const { return thread_ != nullptr; }

 Q_SIGNALS:
  void frameReady(const QImage& frame);
  void failed(const QString& message);
  void stopped();

 private:
  QThread* thread_ = nullptr;
  std::shared_ptr<std::atomic<bool>> stop_flag_;
};

}  // namespace fovea::ui
