#include "ui/training/run_actions.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/train/run_log.h"
#include "ui/training/run_summary.h"

namespace fovea::ui {

RunActions::RunActions(QWidget* parent)
    : QWidget(parent),
      open_best_(new QPushButton(tr("Open best in explorer"))),
      resume_(new QPushButton(tr("Resume"))),
      like_(new QPushButton(tr("New run like this"))),
      unqueue_(new QPushButton(tr("Remove from queue"))) {
  open_best_->setToolTip(tr("Load the run's best checkpoint (by validation BLEU-4; CIDEr-D for self-critical runs) into the caption explorer"));
  resume_->setToolTip(tr("Continue a stopped run from its last checkpoint"));
  like_->setToolTip(tr("Open New run with this run's settings (in a new folder)"));
  unqueue_->setToolTip(tr("Take the selected queued run out of the queue (it will not start)"));
  auto* first = new QHBoxLayout;
  first->addWidget(open_best_);
  first->addWidget(resume_);
  auto* second = new QHBoxLayout;
  second->addWidget(like_);
  second->addWidget(unqueue_);
  second->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(first);
  layout->addLayout(second);

  connect(open_best_, &QPushButton::clicked, this, [this] {
    const auto best = QString::fromStdString(fovea::best_checkpoint_path(dir_.toStdString()));
    const auto last = QString::fromStdString(fovea::last_checkpoint_path(dir_.toStdString()));
    if (!dir_.isEmpty()) Q_EMIT openCheckpointRequested(QFileInfo::exists(best) ? best : last);
  });
  connect(resume_, &QPushButton::clicked, this, [this] {
    if (!dir_.isEmpty()) Q_EMIT resumeRequested(dir_);
  });
  connect(unqueue_, &QPushButton::clicked, this, [this] {
    if (queued_) Q_EMIT unqueueRequested(dir_);
  });
  connect(like_, &QPushButton::clicked, this, [this] {
    if (!dir_.isEmpty()) Q_EMIT newRunLikeRequested(dir_);
  });
  offerFor({});
}

void RunActions::offerFor(const Selection& s) {
  dir_ = s.dir;
  queued_ = s.queued;
  const auto path = s.dir.toStdString();
  open_best_->setEnabled(!s.dir.isEmpty() && QFileInfo::exists(QString::fromStdString(fovea::best_checkpoint_path(path))));
  bool resumable = !s.dir.isEmpty() && !s.live && QFileInfo::exists(QString::fromStdString(fovea::last_checkpoint_path(path)));
  bool failed = false;
  if (resumable) {  // a finished run has nothing left to resume; a failed one would fail again
    failed = s.summary != nullptr && s.summary->failed;
    resumable = s.summary != nullptr && s.summary->readable && !s.summary->finished && !s.summary->failed;
  }
  const bool live_paused = !s.dir.isEmpty() && s.live && s.live_paused;
  unqueue_->setVisible(s.any_queued);
  unqueue_->setEnabled(s.queued);
  resume_->setEnabled(resumable || live_paused);
  resume_->setToolTip(live_paused ? tr("Go on training this paused run (as Resume in the toolbar)")
                      : failed ? tr("This run failed: resuming it would meet the same error. Use New run like this and "
                                  "change the setting that failed it.")
                             : tr("Continue a stopped run from its last checkpoint"));
  like_->setText(failed ? tr("New run like this (to change a setting)") : tr("New run like this"));
  like_->setEnabled(!s.dir.isEmpty() && QFileInfo::exists(QString::fromStdString(fovea::config_path(path))));
}

}  // namespace fovea::ui
