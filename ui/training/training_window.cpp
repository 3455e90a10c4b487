#include "ui/training/training_window.h"

#include <QCloseEvent>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>

#include "core/train/run_log.h"
#include "ui/charts/training_dashboard.h"
#include "ui/common/live_text.h"
#include "ui/common/settings_writer.h"
#include "ui/common/user_message.h"
#include "ui/common/window_fit.h"
#include "ui/training/live_run.h"
#include "ui/training/new_run_checks.h"
#include "ui/training/run_actions.h"
#include "ui/training/run_browser.h"
#include "ui/training/run_list.h"
#include "ui/training/run_queue.h"
#include "ui/training/sample_gallery.h"
#include "ui/training/training_messages.h"
#include "ui/training/training_run.h"
#include "ui/training/training_toolbar.h"

namespace fovea::ui {

namespace {

const QString kGeometryKey = QStringLiteral("training/geometry");

/// `widget` in a frameless scroll area that fits its width; `horizontal` scrolls a column narrower than it.
QScrollArea* scrolled(QWidget* widget, Qt::ScrollBarPolicy horizontal) {
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setWidget(widget);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(horizontal);
  return scroll;
}

/// The window's three columns: the run list over the log | the charts | the samples.
QSplitter* build_columns(QWidget* runs, QWidget* log, QWidget* dashboard, QWidget* gallery) {
  auto* left = new QSplitter(Qt::Vertical);
  left->addWidget(runs);
  left->addWidget(log);
  left->setStretchFactor(0, 3);
  left->setStretchFactor(1, 1);
  auto* main = new QSplitter(Qt::Horizontal);
  main->addWidget(left);
  main->addWidget(scrolled(dashboard, Qt::ScrollBarAlwaysOff));  // the dashboard reflows its charts instead
  // The samples scroll too: their four cells set a minimum height that ran past a short screen
  // (1920x1080 at 200% is 960x540), hiding the status line and its ETA.
  main->addWidget(scrolled(gallery, Qt::ScrollBarAsNeeded));
  main->setStretchFactor(0, 0);
  main->setStretchFactor(1, 1);
  main->setStretchFactor(2, 0);
  return main;
}

}  // namespace

TrainingWindow::TrainingWindow(QWidget* parent)
    : QMainWindow(parent),
      training_(new TrainingRun(this)),
      dashboard_(new TrainingDashboard),
      runs_(new RunList),
      gallery_(new SampleGallery),
      messages_(new TrainingMessages(statusBar(), this)),
      toolbar_(new TrainingToolbar(this, dashboard_, messages_)),
      queue_(new RunQueue(this)),
      live_(new LiveRun(training_, dashboard_, runs_, gallery_, messages_, this)),
      browser_(new RunBrowser(runs_, dashboard_, gallery_, messages_, live_, this)) {
  setWindowTitle(tr("Fovea — training"));
  columns_ = build_columns(runs_, messages_->logView(), dashboard_, gallery_);
  setCentralWidget(columns_);

  connect(toolbar_, &TrainingToolbar::newRunRequested, this, [this] { newRun(); });
  connect(toolbar_, &TrainingToolbar::runFolderChosen, this, &TrainingWindow::openRun);
  connect(toolbar_, &TrainingToolbar::pauseToggled, this, &TrainingWindow::setPaused);
  connect(toolbar_, &TrainingToolbar::stopRequested, this, &TrainingWindow::askToStopRun);
  connect(queue_, &RunQueue::changed, runs_, &RunList::setQueuedRuns);
  connect(training_, &TrainingRun::started, this, &TrainingWindow::runStarted);
  connect(training_, &TrainingRun::message, messages_, &TrainingMessages::log);
  connect(training_, &TrainingRun::finished, this,
          [this](const QString& dir, bool, const QString& summary) { runEnded(dir, summary, false); });
  connect(training_, &TrainingRun::failed, this,
          [this](const QString& dir, const QString& error) { runEnded(dir, error, true); });
  connect(runs_->actions(), &RunActions::unqueueRequested, this, &TrainingWindow::unqueueRun);
  connect(runs_->actions(), &RunActions::openCheckpointRequested, this, &TrainingWindow::openModelRequested);
  connect(runs_->actions(), &RunActions::resumeRequested, this, &TrainingWindow::resumeRun);
  connect(runs_, &RunList::rootChosen, this, &TrainingWindow::setRunsRoot);
  connect(runs_->actions(), &RunActions::newRunLikeRequested, this, [this](const QString& dir) { newRun(dir); });
  connect(dashboard_, &TrainingDashboard::hovered, messages_->statusLine(), &LiveText::setText);

  // The remembered runs folder is listed on the next turn (unless setRunsRoot names another
  // first): creating the window does not wait for a folder scan.
  runs_root_ = QDir::cleanPath(
      QFileInfo(QSettings().value("training/runs_root", QDir::current().filePath("runs")).toString()).absoluteFilePath());
  toolbar_->setFolder(runs_root_);
  browser_->setAutoTick(true);
  QTimer::singleShot(0, this, [this] {
    if (runs_->root().isEmpty()) runs_->setRoot(runs_root_);
  });
  fit_to_screen(this, {1600, 940}, kGeometryKey);
  toolbar_->setRunning(training_->isRunning());
}

TrainingWindow::~TrainingWindow() = default;

void TrainingWindow::setRunsRoot(const QString& root) {
  runs_root_ = QDir::cleanPath(QFileInfo(root).absoluteFilePath());
  remember_setting("training/runs_root", runs_root_);  // the file is written on a worker
  toolbar_->setFolder(runs_root_);
  browser_->setAutoTick(true);  // once listed, a run is ticked unless one is chosen before
  runs_->setRoot(runs_root_);
}

bool TrainingWindow::startRun(const fovea::TrainConfig& config, int processes) {
  if (training_->isRunning()) {
    queue_->add(config, processes);
    const auto text = tr("Queued %1: it starts when the run training now ends (%2 queued).")
                          .arg(QString::fromStdString(config.out_dir))
                          .arg(queue_->size());
    messages_->log(text);
    messages_->setStatus(text);
    return true;
  }
  live_->prepare(config.model.attention == fovea::AttentionKind::Hard);
  return training_->start(config, processes);
}

int TrainingWindow::queuedRuns() const { return queue_->size(); }

fovea::TrainProgress TrainingWindow::lastProgress() const { return live_->lastProgress(); }

void TrainingWindow::runStarted(const QString& dir) {
  const bool resumed = live_->begin(dir);
  const auto live_dir = live_->dir();
  browser_->setAutoTick(false);
  runs_->setLiveRun(live_dir);
  runs_->setChecked(live_dir, true);
  runs_->setCurrentRun(live_dir);
  gallery_->setHistory(live_->samples());
  toolbar_->uncheckPause();
  messages_->startProgress();
  messages_->setStatus(tr("Starting %1…").arg(live_dir));
  messages_->log(tr("%1 %2").arg(resumed ? tr("resuming") : tr("training"), live_dir));
  toolbar_->setRunning(training_->isRunning());
}

void TrainingWindow::runEnded(const QString& dir, const QString& text, bool error) {
  messages_->log(error ? tr("error: %1").arg(text) : text);
  messages_->setStatus(error ? tr("Training failed: %1").arg(in_field_names(user_summary(text))) : text);
  messages_->hideProgress();
  // A run that failed before it logged a step is no run: its folder is gone too
  // (core/train/training_job.h), and a legend naming it would stay for the whole session.
  if (error && !QFileInfo::exists(QString::fromStdString(fovea::metrics_path(dir.toStdString()))))
    dashboard_->removeRun(QDir::cleanPath(dir));
  runs_->setLiveRun(QString());
  toolbar_->setRunning(training_->isRunning());
  if (!queue_->isEmpty()) {  // the next queued run, once this one's signals are done
    QTimer::singleShot(0, this, [this] {
      if (queue_->isEmpty() || training_->isRunning()) return;
      const auto next = queue_->takeFirst();
      startRun(next.config, next.processes);
    });
  }
  if (error && isVisible()) show_message_box(this, QMessageBox::Warning, tr("Training failed"), in_field_names(text));
  if (closing_) {
    closing_ = false;
    close();
    Q_EMIT closedAfterStop();
  }
}

void TrainingWindow::setPaused(bool paused) {
  if (!training_->isRunning()) return;
  training_->setPaused(paused);
  toolbar_->showPaused(paused);
  runs_->setLivePaused(paused);  // the run list's Resume agrees with this one
  messages_->log(paused ? tr("pausing at the next step…") : tr("resuming…"));
}

void TrainingWindow::askToStopRun() {
  if (!training_->isRunning()) return;
  if (confirm_stop_) {
    QMessageBox box(QMessageBox::Question, tr("Stop the run?"),
                    tr("Stop %1 at its next step? A checkpoint is written: Resume in the run list continues it "
                       "from there.").arg(QFileInfo(live_->dir()).fileName()),
                    QMessageBox::NoButton, this);
    QPushButton* stop = box.addButton(tr("Stop the run"), QMessageBox::AcceptRole);
    box.setDefaultButton(box.addButton(tr("Keep training"), QMessageBox::RejectRole));
    box.exec();
    if (box.clickedButton() != stop) return;
  }
  cancelRun();
}

void TrainingWindow::cancelRun() {
  if (!training_->isRunning()) return;
  training_->cancel();
  messages_->setStatus(tr("Stopping at the next step…"));
}

QStringList TrainingWindow::exportCharts(const QString& dir) { return toolbar_->exportCharts(dir); }

QString TrainingWindow::statusText() const { return messages_->statusText(); }

QString TrainingWindow::logText() const { return messages_->logText(); }

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
                                 "from the run list.").arg(QFileInfo(live_->dir()).fileName())) != QMessageBox::Yes) {
      event->ignore();
      return;
    }
    // No waiting here: the window goes now, the run writes its checkpoint on its own thread, and
    // runEnded() closes the window for good once it has.
    messages_->setStatus(tr("Stopping at a checkpoint…"));
    closing_ = true;
    queue_->clear();  // closing drops the runs queued behind this one
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
