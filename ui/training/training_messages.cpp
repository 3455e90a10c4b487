// The training window's log pane, status line and progress bar (training_messages.h).
#include "ui/training/training_messages.h"

#include <QPlainTextEdit>
#include <QProgressBar>
#include <QStatusBar>

#include <algorithm>

#include "ui/common/live_text.h"
#include "ui/common/user_message.h"
#include "ui/training/new_run_checks.h"

namespace fovea::ui {

namespace {

QString clock_text(double seconds) {
  const auto s = qint64(seconds + 0.5);
  return s >= 3600 ? QString("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'))
                   : QString("%1:%2").arg(s / 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'));
}

}  // namespace

TrainingMessages::TrainingMessages(QStatusBar* bar, QObject* parent)
    : QObject(parent), log_(new QPlainTextEdit), status_(new LiveText), progress_(new QProgressBar) {
  status_->setText(tr("No run training. Start one with New run, or tick past runs to compare them."));
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  log_->setPlaceholderText(tr("Messages from the trainer"));
  progress_->setMaximumWidth(240);
  progress_->setTextVisible(true);
  progress_->hide();
  bar->addWidget(status_, 1);
  bar->addPermanentWidget(progress_);
}

// The trainer's messages name settings as the CLI spells them ("a lower --lr helps"): here they
// are the New run dialog's fields.
void TrainingMessages::log(const QString& text) { log_->appendPlainText(in_field_names(user_text(text))); }

void TrainingMessages::setStatus(const QString& text) { status_->setText(text); }

QString TrainingMessages::statusText() const { return status_->text(); }

QString TrainingMessages::logText() const { return log_->toPlainText(); }

void TrainingMessages::startProgress() {
  progress_->setValue(0);
  progress_->show();
}

void TrainingMessages::hideProgress() { progress_->hide(); }

void TrainingMessages::showProgress(const fovea::TrainProgress& p) {
  progress_->setMaximum(int(std::max<std::int64_t>(1, p.total_steps)));
  progress_->setValue(int(p.step));
  if (p.paused) {
    status_->setText(tr("Paused at step %1 of %2 (checkpoint written).").arg(p.step).arg(p.total_steps));
    return;
  }
  if (p.features_done < p.features_total) {
    progress_->setMaximum(int(p.features_total));
    progress_->setValue(int(p.features_done));
    status_->setText(tr("computing the training images' annotations once (the encoder does not train): %1/%2 · ETA %3")
                         .arg(p.features_done)
                         .arg(p.features_total)
                         .arg(clock_text(p.eta_s)));
    return;
  }
  if (p.pretrain_step < p.pretrain_steps) {
    progress_->setMaximum(int(p.pretrain_steps));
    progress_->setValue(int(p.pretrain_step));
    status_->setText(tr("pretraining the encoder on single items: step %1/%2 · items named right %3% · elapsed %4 · "
                        "ETA %5 (then %6 captioning steps)")
                         .arg(p.pretrain_step)
                         .arg(p.pretrain_steps)
                         .arg(100 * p.item_accuracy, 0, 'f', 0)
                         .arg(clock_text(p.elapsed_s), clock_text(p.eta_s))
                         .arg(p.total_steps));
    return;
  }
  status_->setText(tr("step %1/%2 · epoch %3/%4 · loss %5 · %6 words/s · elapsed %7 · ETA %8")
                       .arg(p.step)
                       .arg(p.total_steps)
                       .arg(p.epoch)
                       .arg(p.epochs)
                       .arg(p.loss, 0, 'f', 3)
                       .arg(p.tokens_per_s, 0, 'f', 0)
                       .arg(clock_text(p.elapsed_s), clock_text(p.eta_s)));
}

}  // namespace fovea::ui
