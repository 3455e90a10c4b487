#include "ui/training/training_window.h"

#include <memory>

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QTimer>
#include <QStatusBar>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>

#include "core/io/checkpoint_header.h"
#include "core/train/run_log.h"
#include "ui/charts/run_curves.h"
#include "ui/charts/training_dashboard.h"
#include "ui/common/settings_writer.h"
#include "ui/common/user_message.h"
#include "ui/common/window_fit.h"
#include "ui/common/live_text.h"
#include "ui/training/new_run_checks.h"
#include "ui/training/new_run_dialog.h"
#include "ui/training/run_actions.h"
#include "ui/training/run_list.h"
#include "ui/training/run_log_reader.h"
#include "ui/training/sample_gallery.h"
#include "ui/training/training_run.h"

namespace fovea::ui {

namespace {

const QString kGeometryKey = QStringLiteral("training/geometry");

QString clock_text(double seconds) {
  const auto s = qint64(seconds + 0.5);
  return s >= 3600 ? QString("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'))
                   : QString("%1:%2").arg(s / 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'));
}


}  // namespace

TrainingWindow::TrainingWindow(QWidget* parent)
    : QMainWindow(parent),
      training_(new TrainingRun(this)),
      dashboard_(new TrainingDashboard),
      runs_(new RunList),
      gallery_(new SampleGallery),
      log_(new QPlainTextEdit),
      status_(new LiveText),
      progress_(new QProgressBar) {
  setWindowTitle(tr("Fovea — training"));
  status_->setText(tr("No run training. Start one with New run, or tick past runs to compare them."));
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  log_->setPlaceholderText(tr("Messages from the trainer"));

  auto* left = new QSplitter(Qt::Vertical);
  left->addWidget(runs_);
  left->addWidget(log_);
  left->setStretchFactor(0, 3);
  left->setStretchFactor(1, 1);

  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setWidget(dashboard_);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the dashboard reflows its charts instead

  // The samples scroll too: their four cells set a minimum height that ran past a short screen
  // (1920x1080 at 200% is 960x540), hiding the status line and its ETA.
  auto* samples = new QScrollArea;
  samples->setWidgetResizable(true);
  samples->setWidget(gallery_);
  samples->setFrameShape(QFrame::NoFrame);
  samples->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);  // a column narrower than its samples

  auto* main = new QSplitter(Qt::Horizontal);
  main->addWidget(left);
  main->addWidget(scroll);
  main->addWidget(samples);
  main->setStretchFactor(0, 0);
  main->setStretchFactor(1, 1);
  main->setStretchFactor(2, 0);
  columns_ = main;
  setCentralWidget(main);

  progress_->setMaximumWidth(240);
  progress_->setTextVisible(true);
  progress_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  buildToolbar();

  connect(training_, &TrainingRun::started, this, &TrainingWindow::runStarted);
  connect(training_, &TrainingRun::record, this, [this](const fovea::TrainRecord& r) { dashboard_->addTrainRecord(live_dir_, r); });
  connect(training_, &TrainingRun::validation, this, [this](const fovea::ValidationRecord& v) {
    dashboard_->addValidationRecord(live_dir_, v);
    live_best_bleu_ = std::max(live_best_bleu_, v.bleu[3]);
    QString text = tr("validation after epoch %1: BLEU-4 %2, CIDEr-D %3").arg(v.epoch).arg(v.bleu[3], 0, 'f', 3).arg(v.cider, 0, 'f', 3);
    if (v.has_grounding) text += tr(", pointing %1%").arg(100 * v.pointing, 0, 'f', 1);
    if (v.has_faithfulness) text += tr(", faithful nouns %1%").arg(100 * v.faithful_rate, 0, 'f', 0);
    log(text + (v.improved ? QStringLiteral(" (%1)").arg(QString::fromStdString(improvement_note(v))) : QString()));
  });
  connect(training_, &TrainingRun::pretrainRecord, this,
          [this](const fovea::PretrainRecord& p) { dashboard_->addPretrainRecord(live_dir_, p); });
  connect(training_, &TrainingRun::progress, this, &TrainingWindow::showProgress);
  connect(training_, &TrainingRun::samples, this, [this](const fovea::SampleRecord& s) {
    live_samples_.push_back(s);
    if (runs_->currentRun() == live_dir_ || runs_->currentRun().isEmpty()) gallery_->addRecord(s);
  });
  connect(training_, &TrainingRun::message, this, &TrainingWindow::log);
  connect(training_, &TrainingRun::event, this, [this](const fovea::TrainEvent& e) {
    if (e.action != "rollback") return dashboard_->addEvent(live_dir_, e);
    reloadLiveRun();  // the run went back to its last checkpoint: its curves too
  });
  connect(training_, &TrainingRun::finished, this,
          [this](const QString& dir, bool, const QString& summary) { runEnded(dir, summary, false); });
  connect(training_, &TrainingRun::failed, this,
          [this](const QString& dir, const QString& error) { runEnded(dir, error, true); });
  connect(runs_, &RunList::runToggled, this, [this](const QString& dir, bool checked) {
    if (!checked) return dashboard_->removeRun(dir);
    auto_tick_ = false;
    if (dir == live_dir_ && training_->isRunning()) return;
    dashboard_->reserveColour(dir);  // the tick order's colour, whichever reading ends first
    // Read on a thread of its own; shown when it arrives, if the run is still ticked then.
    status_->setText(tr("Reading %1…").arg(QFileInfo(dir).fileName()));
    const auto current = runs_->currentRun();
    auto curves = std::make_shared<RunCurves>();  // built on the reading thread
    read_run_log_async(this, dir, /*with_samples=*/true, [this, dir, current, curves](const fovea::RunLog& log) {
      // Selected too, unless the user selected another run meanwhile.
      if (runs_->checkedRuns().contains(dir)) showRun(dir, log, *curves, runs_->currentRun() == current || runs_->currentRun() == dir);
    }, [this](const QString& error) {
      log(error);
      status_->setText(user_summary(error));
    }, [curves](fovea::RunLog& log) { *curves = run_curves(log); });
  });
  connect(runs_, &RunList::currentRunChanged, this, &TrainingWindow::selectionChanged);
  connect(runs_, &RunList::summariesReady, this, &TrainingWindow::tickOnOpen);
  connect(runs_->actions(), &RunActions::unqueueRequested, this, &TrainingWindow::unqueueRun);
  connect(runs_->actions(), &RunActions::openCheckpointRequested, this, &TrainingWindow::openModelRequested);
  connect(runs_->actions(), &RunActions::resumeRequested, this, &TrainingWindow::resumeRun);
  connect(runs_, &RunList::rootChosen, this, &TrainingWindow::setRunsRoot);
  connect(runs_->actions(), &RunActions::newRunLikeRequested, this, [this](const QString& dir) { newRun(dir); });
  connect(dashboard_, &TrainingDashboard::hovered, status_, &LiveText::setText);

  // The remembered runs folder is listed on the next turn (unless setRunsRoot names another
  // first): creating the window does not wait for a folder scan.
  runs_root_ = QDir::cleanPath(
      QFileInfo(QSettings().value("training/runs_root", QDir::current().filePath("runs")).toString()).absoluteFilePath());
  auto_tick_ = true;
  QTimer::singleShot(0, this, [this] {
    if (runs_->root().isEmpty()) runs_->setRoot(runs_root_);
  });
  fit_to_screen(this, {1600, 940}, kGeometryKey);
  updateActions();
}

TrainingWindow::~TrainingWindow() = default;

void TrainingWindow::setRunsRoot(const QString& root) {
  runs_root_ = QDir::cleanPath(QFileInfo(root).absoluteFilePath());
  remember_setting("training/runs_root", runs_root_);  // the file is written on a worker
  auto_tick_ = true;  // once listed, a run is ticked unless one is chosen before
  runs_->setRoot(runs_root_);
}


bool TrainingWindow::startRun(const fovea::TrainConfig& config, int processes) {
  if (training_->isRunning()) {
    queue_.append({config, processes});
    showQueue();
    const auto text = tr("Queued %1: it starts when the run training now ends (%2 queued).")
                          .arg(QString::fromStdString(config.out_dir))
                          .arg(queue_.size());
    log(text);
    status_->setText(text);
    return true;
  }
  live_hard_ = config.model.attention == fovea::AttentionKind::Hard;
  live_best_bleu_ = -1;
  return training_->start(config, processes);
}


void TrainingWindow::runStarted(const QString& dir) {
  const bool resumed = live_dir_ == QDir::cleanPath(dir) || dashboard_->hasRun(QDir::cleanPath(dir));
  live_dir_ = QDir::cleanPath(dir);
  if (!resumed) live_samples_.clear();
  last_progress_ = {};
  auto_tick_ = false;
  dashboard_->addRun(live_dir_, QFileInfo(live_dir_).fileName(), live_hard_);
  runs_->setLiveRun(live_dir_);
  runs_->setChecked(live_dir_, true);
  runs_->setCurrentRun(live_dir_);
  gallery_->setHistory(live_samples_);
  pause_action_->setChecked(false);
  progress_->setValue(0);
  progress_->show();
  status_->setText(tr("Starting %1…").arg(live_dir_));
  log(tr("%1 %2").arg(resumed ? tr("resuming") : tr("training"), live_dir_));
  updateActions();
}

void TrainingWindow::runEnded(const QString& dir, const QString& text, bool error) {
  log(error ? tr("error: %1").arg(text) : text);
  status_->setText(error ? tr("Training failed: %1").arg(in_field_names(user_summary(text))) : text);
  progress_->hide();
  // A run that failed before it logged a step is no run: its folder is gone too
  // (core/train/training_job.h), and a legend naming it would stay for the whole session.
  if (error && !QFileInfo::exists(QString::fromStdString(fovea::metrics_path(dir.toStdString()))))
    dashboard_->removeRun(QDir::cleanPath(dir));
  runs_->setLiveRun(QString());
  updateActions();
  if (!queue_.isEmpty()) {  // the next queued run, once this one's signals are done
    QTimer::singleShot(0, this, [this] {
      if (!queue_.isEmpty() && !training_->isRunning()) {
        const auto next = queue_.takeFirst();
        showQueue();
        startRun(next.config, next.processes);
      }
    });
  }
  if (error && isVisible()) show_message_box(this, QMessageBox::Warning, tr("Training failed"), in_field_names(text));
  if (closing_) {
    closing_ = false;
    close();
    Q_EMIT closedAfterStop();
  }
}

void TrainingWindow::showProgress(const fovea::TrainProgress& p) {
  last_progress_ = p;
  QString line = live_hard_ ? tr("hard") : tr("soft");
  if (p.pretrain_step < p.pretrain_steps) line += tr(" · pretraining %1/%2").arg(p.pretrain_step).arg(p.pretrain_steps);
  else line += tr(" · step %1").arg(p.step);
  if (live_best_bleu_ >= 0) line += tr(" · BLEU-4 %1").arg(live_best_bleu_, 0, 'f', 3);
  runs_->setLiveProgress(line, p.paused || training_->isPaused());  // paused, or pausing at the next step
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




// The trainer's messages name settings as the CLI spells them ("a lower --lr helps"): here they
// are the New run dialog's fields.
void TrainingWindow::log(const QString& text) { log_->appendPlainText(in_field_names(user_text(text))); }

QString TrainingWindow::statusText() const { return status_->text(); }

QString TrainingWindow::logText() const { return log_->toPlainText(); }

void TrainingWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (shown_before_) return;
  shown_before_ = true;
  const int w = std::max(width(), 600);
  columns_->setSizes({w * 19 / 100, w * 60 / 100, w * 21 / 100});
}

void TrainingWindow::closeEvent(QCloseEvent* event) {
  if (training_->isRunning()) {
    if (confirm_close_ &&
        QMessageBox::question(this, tr("A run is training"),
                              tr("%1 is still training. Stop it at a checkpoint and close? It can be resumed later "
                                 "from the run list.").arg(QFileInfo(live_dir_).fileName())) != QMessageBox::Yes) {
      event->ignore();
      return;
    }
    // No waiting here: the window goes now, the run writes its checkpoint on its own thread, and
    // runEnded() closes the window for good once it has.
    status_->setText(tr("Stopping at a checkpoint…"));
    closing_ = true;
    queue_.clear();  // closing drops the runs queued behind this one
    showQueue();
    training_->cancel();
    remember_geometry(this, kGeometryKey);
    hide();
    event->ignore();
    return;
  }
  remember_geometry(this, kGeometryKey);
  event->accept();
}

}  // namespace fovea::ui
