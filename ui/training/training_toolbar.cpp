// The training window's toolbar (training_toolbar.h).
#include "ui/training/training_toolbar.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QMainWindow>
#include <QSlider>
#include <QToolBar>

#include "ui/charts/chart_export.h"
#include "ui/charts/metric_chart.h"
#include "ui/charts/training_dashboard.h"
#include "ui/training/training_messages.h"

namespace fovea::ui {

TrainingToolbar::TrainingToolbar(QMainWindow* window, TrainingDashboard* dashboard, TrainingMessages* messages)
    : QObject(window), window_(window), dashboard_(dashboard), messages_(messages) {
  auto* tb = window->addToolBar(tr("Training"));
  tb->setObjectName("training-toolbar");
  tb->setToolButtonStyle(Qt::ToolButtonTextOnly);
  new_action_ = tb->addAction(tr("New run…"), this, &TrainingToolbar::newRunRequested);
  new_action_->setToolTip(tr("Start a run (queued while another trains)"));
  new_action_->setShortcut(QKeySequence::New);
  tb->addAction(tr("Open run…"), this, &TrainingToolbar::chooseRunFolder);
  tb->addSeparator();
  pause_action_ = tb->addAction(tr("Pause"));
  pause_action_->setCheckable(true);
  pause_action_->setToolTip(tr("Pause between steps (a checkpoint is written); click again to go on"));
  connect(pause_action_, &QAction::toggled, this, &TrainingToolbar::pauseToggled);
  cancel_action_ = tb->addAction(tr("Stop"), this, &TrainingToolbar::stopRequested);
  cancel_action_->setToolTip(tr("Stop at the next step with a checkpoint (it asks first); Resume in the run list continues it"));
  tb->addSeparator();
  addChartButtons(tb);
}

void TrainingToolbar::addChartButtons(QToolBar* tb) {
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
  tb->addAction(tr("Export charts…"), this, &TrainingToolbar::chooseExportFolder);
}

void TrainingToolbar::setRunning(bool running) {
  pause_action_->setEnabled(running);
  cancel_action_->setEnabled(running);
  if (!running) pause_action_->setText(tr("Pause"));
}

void TrainingToolbar::showPaused(bool paused) {
  pause_action_->blockSignals(true);
  pause_action_->setChecked(paused);
  pause_action_->setText(paused ? tr("Resume") : tr("Pause"));
  pause_action_->blockSignals(false);
}

void TrainingToolbar::uncheckPause() { pause_action_->setChecked(false); }

QStringList TrainingToolbar::exportCharts(const QString& dir) {
  QDir().mkpath(dir);
  QStringList written;
  for (const auto& name : dashboard_->chartNames()) {
    auto* chart = dashboard_->chart(name);
    const auto base = QDir(dir).filePath(name);
    QString error;
    if (chart->exports()->png(base + ".png", &error)) written << base + ".png";
    if (chart->exports()->svg(base + ".svg", &error)) written << base + ".svg";
    if (chart->exports()->csv(base + ".csv", &error)) written << base + ".csv";
    if (!error.isEmpty()) messages_->log(error);
  }
  return written;
}

void TrainingToolbar::chooseRunFolder() {
  const auto dir = QFileDialog::getExistingDirectory(window_, tr("Open a run folder"), folder_);
  if (!dir.isEmpty()) Q_EMIT runFolderChosen(dir);
}

void TrainingToolbar::chooseExportFolder() {
  const auto dir = QFileDialog::getExistingDirectory(window_, tr("Export every chart (PNG, SVG, CSV) into"), folder_);
  if (dir.isEmpty()) return;
  const auto files = exportCharts(dir);
  messages_->setStatus(tr("Wrote %1 files to %2").arg(files.size()).arg(dir));
}

}  // namespace fovea::ui
