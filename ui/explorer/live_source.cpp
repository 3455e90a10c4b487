#include "ui/explorer/live_source.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QPointer>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "core/data/video_io.h"
#include "core/decode/caption_stabiliser.h"
#include "core/decode/captioner.h"
#include "core/runtime/error_text.h"
#include "ui/common/image_convert.h"

namespace fovea::ui {

using Clock = std::chrono::steady_clock;

/// What the GUI thread and the worker share, under `mutex`.
struct LiveSource::Shared {
  std::mutex mutex;
  std::condition_variable wake;
  std::thread worker;
  bool stop = false, playing = false, loop = true, step = false, open = false, camera = false;
  long long seek = -1, count = 0;
  /// With `step`: the frame after the one shown, which the step reads (the reader may have gone
  /// past it, or round to the clip's start, while the frame shown was captioned); -1: the next read.
  long long step_to = -1;
  double fps = 25;
  QString path;
  std::optional<LiveFrame> slot;  ///< the newest frame, not yet taken by the GUI
  bool options_changed = false;
  fovea::CaptionOptions options;
};

LiveSource::LiveSource(QObject* parent) : QObject(parent) {
  qRegisterMetaType<fovea::ui::LiveFrame>();
  options_.beam = 1;
}

LiveSource::~LiveSource() { close(); }

void LiveSource::setModel(const QString& path) { model_ = path; }

void LiveSource::setCaptionOptions(const fovea::CaptionOptions& options) {
  options_ = options;
  if (!shared_) return;
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->options = options;
  shared_->options_changed = true;
}

void LiveSource::close() {
  if (!shared_) return;
  auto s = shared_;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    s->stop = true;
  }
  s->wake.notify_all();
  if (s->worker.joinable()) s->worker.join();
  shared_.reset();
  latest_ = {};
}

/// The worker thread of one opened source: reads the video file or camera, keeps a file to its own
/// frame rate (dropping frames when captioning falls behind), captions each frame and hands the
/// newest to the GUI thread, until the source closes.
struct LiveSource::Worker {
  std::shared_ptr<Shared> s;
  std::string model;
  QPointer<LiveSource> self;
  Clock::time_point clock_start;
  long long index_start = 0;

  /// A queued call to the GUI thread; dropped if the source is gone by then.
  template <class Fn>
  void post(Fn fn) const {
    QPointer<LiveSource> me = self;
    QMetaObject::invokeMethod(me.data(), [me, fn] { if (me) fn(*me); }, Qt::QueuedConnection);
  }

  void run() {
    try {
      VideoReader reader(s->path.toStdString());
      {
        std::lock_guard<std::mutex> lock(s->mutex);
        s->open = true, s->camera = reader.is_camera(), s->count = reader.frame_count(), s->fps = reader.fps();
      }
      post([](LiveSource& me) { Q_EMIT me.opened(me.path()); Q_EMIT me.playingChanged(me.isPlaying()); });
      std::optional<Captioner> captioner;
      std::optional<LiveCaptioner> live;
      if (!model.empty()) {
        captioner.emplace(model, "cpu");
        live.emplace(*captioner, s->options);
      }
      play(reader, captioner, live);
    } catch (const std::exception& e) {
      const QString message = QString::fromStdString(error_text(e));
      {
        std::lock_guard<std::mutex> lock(s->mutex);
        s->playing = false;
      }
      post([message](LiveSource& me) { Q_EMIT me.playingChanged(false); Q_EMIT me.failed(message); });
    }
  }

  /// Frame after frame until the source closes.
  void play(VideoReader& reader, std::optional<Captioner>& captioner, std::optional<LiveCaptioner>& live) {
    clock_start = Clock::now();
    index_start = reader.next_index();
    RgbImage frame;
    for (;;) {
      bool stepping = false;
      if (!takeRequests(reader, captioner, live, stepping)) return;
      if (!reader.is_camera() && !stepping) {
        // Behind the file's clock by more than a frame: drop frames (never queue them).
        const auto due = index_start + (long long)(std::chrono::duration<double>(Clock::now() - clock_start).count() * reader.fps());
        while (reader.next_index() < due && reader.skip()) {
        }
      }
      if (!reader.read(frame)) {
        endOfClip(reader, live, stepping);
        continue;
      }
      hand(reader, frame, live);
      if (!reader.is_camera()) waitForNextFrame(reader);
    }
  }

  /// Waits to play on (or for a step or a seek), then takes the GUI's requests: new options, a
  /// seek, a step. `stepping`: one frame is shown, then the source stays paused. False: stop.
  bool takeRequests(VideoReader& reader, std::optional<Captioner>& captioner, std::optional<LiveCaptioner>& live,
                    bool& stepping) {
    bool restart = false;
    {
      std::unique_lock<std::mutex> lock(s->mutex);
      s->wake.wait(lock, [&] { return s->stop || s->playing || s->step || s->seek >= 0; });
      if (s->stop) return false;
      if (s->options_changed && captioner) live.emplace(*captioner, s->options);
      s->options_changed = false;
      if (s->seek >= 0 && !reader.is_camera()) {
        reader.seek(s->seek);
        if (live) live->reset();
        stepping = !s->playing;
        restart = true;
      }
      s->seek = -1;
      if (s->step && s->step_to >= 0 && !reader.is_camera() && reader.next_index() != s->step_to) {
        reader.seek(s->step_to < s->count || s->count <= 0 ? s->step_to : 0);
      }
      stepping = stepping || s->step;
      restart = restart || s->step;
      s->step = false;
      s->step_to = -1;
    }
    if (restart) clock_start = Clock::now(), index_start = reader.next_index();
    return true;
  }

  /// The end of a file: round to its start when looping, else stop playing.
  void endOfClip(VideoReader& reader, std::optional<LiveCaptioner>& live, bool stepping) {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (s->loop && reader.frame_count() > 1) {
      reader.seek(0);
      if (live) live->reset();
      clock_start = Clock::now(), index_start = 0;
      s->step = s->step || stepping;  // a step at the clip's end shows its first frame
    } else {
      s->playing = false;
      post([](LiveSource& me) { Q_EMIT me.playingChanged(false); Q_EMIT me.finished(); });
    }
  }

  /// Captions `frame` (when a model is loaded) and puts it in the slot the GUI takes the newest from.
  void hand(const VideoReader& reader, const RgbImage& frame, std::optional<LiveCaptioner>& live) {
    LiveFrame out;
    out.index = reader.next_index() - 1;
    out.time = double(out.index) / reader.fps();
    out.image = to_qimage(frame);
    if (live) {
      const LiveCaption c = live->next(frame);  // resized to the model's input as every image is
      out.caption = c.shown;
      out.changed = c.changed;
    }
    bool notify = false;
    {
      std::lock_guard<std::mutex> lock(s->mutex);
      notify = !s->slot.has_value();
      s->slot = std::move(out);
    }
    if (notify) post([](LiveSource& me) { me.deliver(); });
  }

  /// A file plays at its own rate: waits until the next frame is due (or a step, seek or stop).
  void waitForNextFrame(const VideoReader& reader) {
    std::unique_lock<std::mutex> lock(s->mutex);
    const auto next_due = clock_start + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>((reader.next_index() - index_start) / reader.fps()));
    s->wake.wait_until(lock, next_due, [&] { return s->stop || s->step || s->seek >= 0; });
  }
};

void LiveSource::open(const QString& path) {
  close();
  auto s = std::make_shared<Shared>();
  s->path = path;
  s->playing = true;
  s->options = options_;
  shared_ = s;
  s->worker = std::thread([worker = Worker{s, model_.toStdString(), QPointer<LiveSource>(this)}]() mutable { worker.run(); });
}

void LiveSource::deliver() {
  if (!shared_) return;
  std::optional<LiveFrame> frame;
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    frame.swap(shared_->slot);
  }
  if (!frame) return;
  latest_ = std::move(*frame);
  Q_EMIT frameReady(latest_);
}

void LiveSource::play() {
  if (!shared_) return;
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (shared_->playing) return;
    shared_->playing = true;
    shared_->step = true;  // restarts the clock from the frame shown
  }
  shared_->wake.notify_all();
  Q_EMIT playingChanged(true);
}

void LiveSource::pause() {
  if (!shared_) return;
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (!shared_->playing) return;
    shared_->playing = false;
  }
  shared_->wake.notify_all();
  Q_EMIT playingChanged(false);
}

void LiveSource::step() {
  if (!shared_) return;
  pause();
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->step = true;
    shared_->step_to = latest_.image.isNull() ? -1 : latest_.index + 1;
  }
  shared_->wake.notify_all();
}

void LiveSource::seek(long long frame) {
  if (!shared_) return;
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->seek = std::max(0LL, frame);
  }
  shared_->wake.notify_all();
}

void LiveSource::setLoop(bool loop) {
  if (!shared_) return;
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->loop = loop;
}

#define FOVEA_SHARED_GET(expr, fallback) \
  if (!shared_) return fallback;         \
  std::lock_guard<std::mutex> lock(shared_->mutex);                \
  return expr;

bool LiveSource::isOpen() const { FOVEA_SHARED_GET(shared_->open, false) }
bool LiveSource::isPlaying() const { FOVEA_SHARED_GET(shared_->playing, false) }
bool LiveSource::isCamera() const { FOVEA_SHARED_GET(shared_->camera, false) }
QString LiveSource::path() const { FOVEA_SHARED_GET(shared_->path, QString()) }
long long LiveSource::frameCount() const { FOVEA_SHARED_GET(shared_->count, 0LL) }
double LiveSource::fps() const { FOVEA_SHARED_GET(shared_->fps, 25.0) }
LiveFrame LiveSource::latest() const { return latest_; }

QString LiveSource::describeLatest() const {
  if (latest_.image.isNull()) return {};
  const QString source = isCamera() ? path() : QFileInfo(path()).fileName();
  const long long count = frameCount();
  const QString frame = count > 0 ? tr("frame %1 of %2").arg(latest_.index + 1).arg(count) : tr("frame %1").arg(latest_.index + 1);
  return tr("%1 (%2 s) of %3").arg(frame).arg(latest_.time, 0, 'f', 2).arg(source);
}

}  // namespace fovea::ui
