// TrainingWindow's toolbar and what its buttons do: new and open run, pause/resume and cancel,
// the charts' smoothing, scale and zoom, and exporting every chart.
#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSlider>
#include <QToolBar>

#include "ui/charts/metric_chart.h"
#include "ui/charts/training_dashboard.h"
#include "ui/common/live_text.h"
#include "ui/training/run_list.h"
#include "ui/training/training_run.h"
#include "ui/training/training_window.h"

namespace fovea::ui {

void TrainingWindow::buildToolbar() {
  auto* tb = addToolBar(tr("Training"));
  tb->setObjectName("training-toolbar");
  tb->setToolButtonStyle(Qt::ToolButtonTextOnly);
  new_action_ = tb->addAction(tr("New run…"), this, [this] { newRun(); });
  new_action_->setToolTip(tr("Start a run (queued while another trains)"));
  new_action_->setShortcut(QKeySequence::New);
  tb->addAction(tr("Open run…"), this, &TrainingWindow::chooseRunFolder);
  tb->addSeparator();
  pause_action_ = tb->addAction(tr("Pause"));
  pause_action_->setCheckable(true);
  pause_action_->setToolTip(tr("Pause between steps (a checkpoint is written); click again to go on"));
  connect(pause_action_, &QAction::toggled, this, &TrainingWindow::setPaused);
  cancel_action_ = tb->addAction(tr("Stop"), this, &TrainingWindow::askToStopRun);
  cancel_action_->setToolTip(tr("Stop at the next step with a checkpoint (it asks first); Resume in the run list continues it"));
  tb->addSeparator();
  tb->addWidget(new QLabel(tr(" Smoothing ")));
  smoothing_ = new QSlider(Qt::Horizontal);
  smoothing_->setRange(0, 99);
  smoothing_->setMaximumWidth(140);
  smoothing_->setToolTip(tr("Exponential moving average of the per-step curves, as TensorBoard's"));
  smoothing_label_ = new QLabel;
  smoothing_label_->setMinimumWidth(34);
  tb->addWidget(smoothing_);
  tb->addWidget(smoothing_label_);
  connect(smoothing_, &QSlider::valueChanged, this, [this](int v) {
    smoothing_label_->setText(QString::number(v / 100.0, 'f', 2));
    dashboard_->setSmoothing(v / 100.0);
  });
  smoothing_->setValue(60);
  log_scale_ = new QCheckBox(tr("Log scale"));
  tb->addWidget(log_scale_);
  connect(log_scale_, &QCheckBox::toggled, dashboard_, &TrainingDashboard::setLogScale);
  tb->addAction(tr("Reset zoom"), dashboard_, &TrainingDashboard::resetZoom);
  tb->addSeparator();
  tb->addAction(tr("Export charts…"), this, &TrainingWindow::chooseExportFolder);
}

void TrainingWindow::setPaused(bool paused) {
  if (!training_->isRunning()) return;
  training_->setPaused(paused);
  pause_action_->blockSignals(true);
  pause_action_->setChecked(paused);
  pause_action_->setText(paused ? tr("Resume") : tr("Pause"));
  pause_action_->blockSignals(false);
  runs_->setLivePaused(paused);  // the run list's Resume agrees with this one
  log(paused ? tr("pausing at the next step…") : tr("resuming…"));
}

void TrainingWindow::askToStopRun() {
  if (!training_->isRunning()) return;
  if (confirm_stop_) {
    QMessageBox box(QMessageBox::Question, tr("Stop the run?"),
                    tr("Stop %1 at its next step? A checkpoint is written: Resume in the run list continues it "
                       "from there.").arg(QFileInfo(live_dir_).fileName()),
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
  status_->setText(tr("Stopping at the next step…"));
}

void TrainingWindow::updateActions() {
  const bool running = training_->isRunning();
  pause_action_->setEnabled(running);
  cancel_action_->setEnabled(running);
  if (!running) pause_action_->setText(tr("Pause"));
}

QStringList TrainingWindow::exportCharts(const QString& dir) {
  QDir().mkpath(dir);
  QStringList written;
  for (const auto& name : dashboard_->chartNames()) {
    auto* chart = dashboard_->chart(name);
    const auto base = QDir(dir).filePath(name);
    QString error;
    if (chart->exportPng(base + ".png", &error)) written << base + ".png";
    if (chart->exportSvg(base + ".svg", &error)) written << base + ".svg";
    if (chart->exportCsv(base + ".csv", &error)) written << base + ".csv";
    if (!error.isEmpty()) log(error);
  }
  return written;
}

void TrainingWindow::chooseRunFolder() {
  const auto dir = QFileDialog::getExistingDirectory(this, tr("Open a run folder"), runs_root_);
  if (!dir.isEmpty()) openRun(dir);
}

void TrainingWindow::chooseExportFolder() {
  const auto dir = QFileDialog::getExistingDirectory(this, tr("Export every chart (PNG, SVG, CSV) into"), runs_root_);
  if (dir.isEmpty()) return;
  const auto files = exportCharts(dir);
  status_->setText(tr("Wrote %1 files to %2").arg(files.size()).arg(dir));
}

}  // namespace fovea::ui
