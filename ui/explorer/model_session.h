#pragma once
/// A model and the worker thread that runs it. The GUI thread asks for captions and scores;
/// the worker owns the fovea::Captioner; results come back as value types through queued
/// calls, and engine exceptions come back as messages. A newer caption request replaces one
/// that has not started yet, so a webcam or a fast user never builds a queue.
#include <QImage>
#include <QObject>
#include <QString>

#include <deque>
#include <optional>
#include <memory>

#include "core/decode/captioner.h"
#include "core/eval/removal.h"

class QThread;

namespace fovea::ui {

struct ModelDescription {
  QString path;
  QString attention;  ///< "soft" or "hard"
  QString summary;    ///< one line: kind, data, training, vocabulary
  QString card;       ///< a readable model card (rich text): kind, data, training, scores, vocabulary
  int grid_h = 0, grid_w = 0;
};

struct CaptionReply {
  quint64 id = 0;
  bool scored = false;  ///< teacher-forced score of a given caption rather than a generated one
  fovea::CaptionResult result;
  double milliseconds = 0;
};

struct ProbeReply {
  quint64 id = 0;
  fovea::ProbeResult result;
  double milliseconds = 0;
};

struct TakeAwayReply {
  quint64 id = 0;
  fovea::TakeAway result;
  double milliseconds = 0;
};

class ModelSession : public QObject {
  Q_OBJECT
 public:
  explicit ModelSession(QObject* parent = nullptr);
  ~ModelSession() override;  ///< drops the queued requests and waits for the one running

  void loadModel(const QString& path);
  /// Queues a caption of `image`; returns the request id that captionReady/failed will carry.
  quint64 caption(const QImage& image, const fovea::CaptionOptions& options);
  /// Queues teacher-forced scoring of `text` on `image`.
  quint64 score(const QImage& image, const QString& text);
  /// Queues a probe: the next word after `prefix` with attention forced onto `region` (image
  /// pixels). A newer probe replaces one that has not started; captions are not affected.
  quint64 probe(const QImage& image, const fovea::ProbeRegion& region, const QString& prefix);

  /// Queues "take it away" for word `word` of `caption` (a caption of `image`): the image without
  /// what its α points at, and without a control region, each scored and recaptioned with
  /// `options`. A newer request replaces one that has not started.
  quint64 takeAway(const QImage& image, const fovea::CaptionResult& caption, int word,
                   const fovea::CaptionOptions& options);

  bool hasModel() const { return model_.has_value(); }
  /// A model is loaded, or a load has been asked for and has not finished: what the session
  /// will caption with is settled, so nobody should pick a default for it.
  bool hasOrAwaitsModel() const { return model_.has_value() || loads_pending_ > 0; }
  const ModelDescription* model() const { return model_ ? &*model_ : nullptr; }
  bool isBusy() const { return running_; }

 Q_SIGNALS:
  void modelLoaded(const fovea::ui::ModelDescription& model);
  void modelFailed(const QString& path, const QString& error);
  void captionReady(const fovea::ui::CaptionReply& reply);
  void captionFailed(quint64 id, const QString& error);  ///< also for probes and take-aways
  void probeReady(const fovea::ui::ProbeReply& reply);
  void takeAwayReady(const fovea::ui::TakeAwayReply& reply);
  void busyChanged(bool busy);

 private:
  struct Job;
  class Worker;
  quint64 submit(Job job);  ///< assigns the id, queues the job
  void enqueue(Job job);
  void startNext();

  QThread* thread_ = nullptr;
  Worker* worker_ = nullptr;
  std::deque<std::shared_ptr<Job>> queue_;
  bool running_ = false;
  quint64 next_id_ = 1;
  int loads_pending_ = 0;  ///< Load jobs queued or running
  std::optional<ModelDescription> model_;
};

}  // namespace fovea::ui

Q_DECLARE_METATYPE(fovea::ui::ModelDescription)
Q_DECLARE_METATYPE(fovea::ui::CaptionReply)
Q_DECLARE_METATYPE(fovea::ui::ProbeReply)
Q_DECLARE_METATYPE(fovea::ui::TakeAwayReply)
