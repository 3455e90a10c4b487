#include "ui/explorer/model_session.h"

#include <QElapsedTimer>
#include <QDir>
#include <QFileInfo>
#include <QThread>

#include <nlohmann/json.hpp>

#include "ui/common/user_message.h"
#include "ui/common/image_convert.h"

namespace fovea::ui {

struct ModelSession::Job {
  enum Kind { Load, Caption, Score, Probe, TakeAway } kind = Caption;
  quint64 id = 0;
  QString path;   // Load
  QImage image;   // Caption, Score, Probe, TakeAway
  QString text;   // Score: the caption; Probe: the prefix
  fovea::CaptionOptions options;  // Caption, TakeAway
  fovea::ProbeRegion region;  // Probe
  fovea::CaptionResult caption;  // TakeAway: the caption and its word
  int word = 0;
  /// Requests of one family replace each other while queued: captions and scores, probes, take-aways.
  int family() const { return kind == Probe ? 1 : kind == TakeAway ? 2 : 0; }
};

/// Lives on the worker thread; everything it touches there is its own.
class ModelSession::Worker : public QObject {
 public:
  std::unique_ptr<fovea::Captioner> captioner;
};

namespace {

QString row(const QString& name, const QString& value) {
  return QStringLiteral("<tr><td style='color:gray; padding-right:8px'>%1</td><td>%2</td></tr>").arg(name, value);
}

/// A readable model card (rich text) from the engine's info().
QString model_card(const nlohmann::json& info, const QString& path) {
  const auto text = [&](const char* key) { return QString::fromStdString(info.value(key, std::string())).toHtmlEscaped(); };
  const auto& m = info.value("model", nlohmann::json::object());
  const bool hard = info.value("attention", std::string()) == "hard";
  QString card = QStringLiteral("<b>%1</b><table>").arg(QFileInfo(path).fileName().toHtmlEscaped());
  card += row(QObject::tr("Attention"), hard ? QObject::tr("hard (stochastic: one sampled glimpse per word, trained with REINFORCE)")
                                             : QObject::tr("soft (deterministic: a weighted average of the image's cells)"));
  if (info.contains("attention_training")) card += row(QObject::tr("Where it looks"), text("attention_training"));
  if (info.contains("dataset")) {
    card += row(QObject::tr("Trained on"), QObject::tr("%1, images of %2×%2 px")
                                               .arg(text("dataset"))
                                               .arg(m.value("image_size", 0)));
  }
  if (info.contains("saved_at_step")) {
    QString weights = QObject::tr("from step %1").arg(info["saved_at_step"].get<long long>());
    const double seconds = info.value("saved_after_s", 0.0);
    if (seconds > 0) weights += QObject::tr(", after %1 min of training").arg(seconds / 60, 0, 'f', 0);
    card += row(QObject::tr("Weights"), weights);
    const auto best = info.value("best_val", nlohmann::json::object());
    card += row(QObject::tr("Validation %1").arg(QString::fromStdString(best.value("metric", std::string("BLEU-4")))),
                QString::number(best.value("value", info.value("best_val_bleu4", 0.0)), 'f', 3));
  }
  if (info.contains("backbone")) {
    const auto& b = info["backbone"];
    card += row(QObject::tr("Backbone"), QObject::tr("%1 (%2 MB, %3)%4")
                                             .arg(QString::fromStdString(b.value("file", std::string())).toHtmlEscaped())
                                             .arg(double(b.value("bytes", 0ULL)) / 1e6, 0, 'f', 1)
                                             .arg(QString::fromStdString(b.value("digest", std::string())))
                                             .arg(b.value("in_model_file", false) ? QObject::tr(", in the model file")
                                                                                  : QObject::tr(", read from its file")));
  }
  QStringList words;
  for (const auto& w : info.value("vocabulary_sample", std::vector<std::string>())) words << QString::fromStdString(w).toHtmlEscaped();
  const int vocabulary = info.value("vocabulary", 0);
  card += row(QObject::tr("Vocabulary"), QObject::tr("%1 words: %2%3")
                                             .arg(vocabulary)
                                             .arg(words.join(QStringLiteral(", ")))
                                             .arg(words.size() + 4 < vocabulary ? QStringLiteral(", …") : QString()));
  const auto grid = info.value("grid", std::vector<int>{0, 0});
  card += row(QObject::tr("Architecture"),
              QObject::tr("CNN to a %1×%2 grid of %3-d annotations; LSTM of %4, attention MLP %5, embeddings %6%7")
                  .arg(grid.size() > 0 ? grid[0] : 0)
                  .arg(grid.size() > 1 ? grid[1] : 0)
                  .arg(info.value("annotation_dim", 0))
                  .arg(m.value("hidden_dim", 0))
                  .arg(m.value("attention_dim", 0))
                  .arg(m.value("embed_dim", 0))
                  .arg(info.value("beta_gated", false) ? QObject::tr(", β gate") : QString()));
  // The card written beside the model (models/NAME.md) or in its run folder (MODEL_CARD.md).
  const QFileInfo file(path);
  for (const QString& name : {file.completeBaseName() + ".md", QStringLiteral("MODEL_CARD.md")}) {
    const QString card_path = file.dir().filePath(name);
    if (QFileInfo::exists(card_path)) {
      card += row(QObject::tr("Model card"), QDir::toNativeSeparators(card_path).toHtmlEscaped());
      break;
    }
  }
  return card + QStringLiteral("</table>");
}

ModelDescription describe(const fovea::Captioner& c, const QString& path) {
  const nlohmann::json info = c.info();
  ModelDescription d;
  d.path = path;
  d.attention = QString::fromStdString(info.value("attention", std::string("?")));
  d.grid_h = c.config().grid_h;
  d.grid_w = c.config().grid_w;
  QStringList parts;
  if (info.contains("attention_supervised")) {
    parts << (info["attention_supervised"].get<bool>() ? QObject::tr("%1 attention, supervised by object boxes")
                                                       : QObject::tr("%1 attention, learned from captions alone"))
                 .arg(d.attention);
  } else {
    parts << QStringLiteral("%1 attention").arg(d.attention);
  }
  parts << QStringLiteral("trained on %1").arg(QString::fromStdString(info.value("dataset", std::string("?"))));
  if (info.contains("best_val") && info.contains("saved_at_step"))
    parts << QStringLiteral("val %1 %2 at step %3")
                 .arg(QString::fromStdString(info["best_val"].value("metric", std::string("BLEU-4"))))
                 .arg(info["best_val"].value("value", 0.0), 0, 'f', 3)
                 .arg(info["saved_at_step"].get<long long>());
  parts << QStringLiteral("%1 words").arg(info.value("vocabulary", 0));
  parts << QStringLiteral("grid %1x%2").arg(d.grid_h).arg(d.grid_w);
  d.summary = parts.join(QStringLiteral(" · "));
  d.card = model_card(info, path);
  return d;
}

}  // namespace

ModelSession::ModelSession(QObject* parent) : QObject(parent), thread_(new QThread), worker_(new Worker) {
  thread_->setObjectName(QStringLiteral("fovea-model-session"));
  worker_->moveToThread(thread_);
  thread_->start();
}

ModelSession::~ModelSession() {
  queue_.clear();
  // Destroy the captioner on its own thread, then stop the thread (waits for a running job).
  Worker* w = worker_;
  QMetaObject::invokeMethod(w, [w] { w->captioner.reset(); }, Qt::QueuedConnection);
  thread_->quit();
  thread_->wait();
  delete worker_;
  delete thread_;
}

void ModelSession::loadModel(const QString& path) {
  Job j;
  j.kind = Job::Load;
  j.path = path;
  ++loads_pending_;
  submit(std::move(j));
}

quint64 ModelSession::caption(const QImage& image, const fovea::CaptionOptions& options) {
  Job j;
  j.kind = Job::Caption;
  j.image = image;
  j.options = options;
  return submit(std::move(j));
}

quint64 ModelSession::score(const QImage& image, const QString& text) {
  Job j;
  j.kind = Job::Score;
  j.image = image;
  j.text = text;
  return submit(std::move(j));
}

quint64 ModelSession::probe(const QImage& image, const fovea::ProbeRegion& region, const QString& prefix) {
  Job j;
  j.kind = Job::Probe;
  j.image = image;
  j.region = region;
  j.text = prefix;
  return submit(std::move(j));
}

quint64 ModelSession::takeAway(const QImage& image, const fovea::CaptionResult& caption, int word,
                               const fovea::CaptionOptions& options) {
  Job j;
  j.kind = Job::TakeAway;
  j.image = image;
  j.caption = caption;
  j.word = word;
  j.options = options;
  return submit(std::move(j));
}

quint64 ModelSession::submit(Job job) {
  job.id = next_id_++;
  const quint64 id = job.id;
  enqueue(std::move(job));
  return id;
}

void ModelSession::enqueue(Job job) {
  if (job.kind != Job::Load) {
    // Latest wins: drop requests of the same family that have not started.
    const auto same_family = [&](const Job& other) { return other.kind != Job::Load && other.family() == job.family(); };
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (same_family(**it)) {
        Q_EMIT captionFailed((*it)->id, QString());  // superseded; an empty message means "dropped"
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
  }
  queue_.push_back(std::make_shared<Job>(std::move(job)));
  startNext();
}

void ModelSession::startNext() {
  if (running_ || queue_.empty()) return;
  auto job = queue_.front();
  queue_.pop_front();
  running_ = true;
  Q_EMIT busyChanged(true);
  Worker* w = worker_;
  QMetaObject::invokeMethod(
      w,
      [this, w, job] {
        // Worker thread: only the job's values and the worker's captioner are touched here.
        QString error;
        std::optional<ModelDescription> loaded;
        CaptionReply reply;
        reply.id = job->id;
        ProbeReply probe;
        probe.id = job->id;
        TakeAwayReply take_away;
        take_away.id = job->id;
        QElapsedTimer timer;
        timer.start();
        try {
          if (job->kind == Job::Load) {
            auto c = std::make_unique<fovea::Captioner>(job->path.toStdString(), "cpu");
            loaded = describe(*c, job->path);
            w->captioner = std::move(c);
          } else if (!w->captioner) {
            error = QStringLiteral("no model is loaded");
          } else {
            const RgbImage rgb = to_rgb(job->image);
            if (job->kind == Job::Caption) {
              reply.result = w->captioner->caption(rgb, job->options);
            } else if (job->kind == Job::Probe) {
              probe.result = w->captioner->probe(rgb, job->region, job->text.toStdString(), 5);
            } else if (job->kind == Job::TakeAway) {
              take_away.result = fovea::take_away(*w->captioner, rgb, job->caption, std::size_t(job->word), job->options);
            } else {
              reply.scored = true;
              reply.result = w->captioner->score(rgb, job->text.toStdString());
            }
          }
        } catch (const std::exception& e) {
          error = user_text(e);
        } catch (...) {
          error = QStringLiteral("unknown error");
        }
        reply.milliseconds = probe.milliseconds = take_away.milliseconds = timer.nsecsElapsed() / 1e6;
        QMetaObject::invokeMethod(
            this,
            [this, job, error, loaded, reply, probe, take_away] {
              if (job->kind == Job::Load) {
                --loads_pending_;
                if (loaded) {
                  model_ = loaded;
                  Q_EMIT modelLoaded(*loaded);
                } else {
                  Q_EMIT modelFailed(job->path, error.contains(job->path) ? error : job->path + ": " + error);
                }
              } else if (!error.isEmpty()) {
                Q_EMIT captionFailed(job->id, error);
              } else if (job->kind == Job::Probe) {
                Q_EMIT probeReady(probe);
              } else if (job->kind == Job::TakeAway) {
                Q_EMIT takeAwayReady(take_away);
              } else {
                Q_EMIT captionReady(reply);
              }
              running_ = false;
              if (queue_.empty()) Q_EMIT busyChanged(false);
              startNext();
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

}  // namespace fovea::ui
