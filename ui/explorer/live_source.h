#pragma once
/// fovea-studio's one live source: a video file or a camera (/dev/videoN) read, resized and
/// captioned on a worker thread through the core's VideoReader and LiveCaptioner (the stabiliser of
/// core/decode/caption_stabiliser.h), the same path as `fovea caption VIDEO`. The GUI gets the
/// newest captioned frame only: frames are dropped, never queued, and a file plays at its own
/// frame rate, skipping frames when captioning falls behind. Play, pause, step, seek (files), loop.
#include <QImage>
#include <QObject>
#include <QString>

#include <memory>

#include "core/decode/caption_result.h"

namespace fovea::ui {

/// One shown frame with the caption shown on it and this frame's α.
struct LiveFrame {
  QImage image;
  fovea::CaptionResult caption;  ///< empty while no model is loaded
  long long index = 0;           ///< frame number in the source
  double time = 0;               ///< seconds from the start
  bool changed = false;          ///< the shown caption changed on this frame
};

class LiveSource : public QObject {
  Q_OBJECT
 public:
  explicit LiveSource(QObject* parent = nullptr);
  ~LiveSource() override;  ///< stops the worker

  /// The model frames are captioned with (loaded on the worker); empty: frames only.
  void setModel(const QString& path);
  void setCaptionOptions(const fovea::CaptionOptions& options);
  /// What frames are captioned with (the window's decoding controls set it).
  const fovea::CaptionOptions& captionOptions() const { return options_; }
  /// Opens a video file or a camera and starts playing; opened() or failed() follows.
  void open(const QString& path);
  /// Stops the worker (waits for it); nothing is emitted after it returns.
  void close();
  void play();
  void pause();
  void step();                  ///< pauses and shows the next frame
  void seek(long long frame);   ///< files: shows that frame (and plays on if playing)
  void setLoop(bool loop);

  bool isOpen() const;
  bool isPlaying() const;
  bool isCamera() const;
  QString path() const;
  long long frameCount() const;  ///< -1 for a camera
  double fps() const;
  /// The newest frame shown (null image before the first).
  LiveFrame latest() const;
  /// Which frame latest() is, in words: "frame 13 of 30 (1.20 s) of clip.avi"; "" before the first.
  QString describeLatest() const;

 Q_SIGNALS:
  void opened(const QString& path);
  void frameReady(const fovea::ui::LiveFrame& frame);
  void failed(const QString& message);
  void playingChanged(bool playing);
  void finished();  ///< the end of a file, when not looping

 private:
  struct Shared;
  struct Worker;
  void deliver();  ///< on the GUI thread: emits the newest frame
  std::shared_ptr<Shared> shared_;
  LiveFrame latest_;
  QString model_;
  fovea::CaptionOptions options_;
};

}  // namespace fovea::ui

Q_DECLARE_METATYPE(fovea::ui::LiveFrame)
