#include "ui/training/run_list.h"

#include <QTimer>

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <exception>

#include "core/train/run_log.h"
#include "ui/common/user_message.h"
#include "ui/training/run_scanner.h"

namespace fovea::ui {

RunList::RunList(QWidget* parent)
    : QWidget(parent),
      root_label_(new QLabel),
      list_(new QListWidget),
      open_best_(new QPushButton(tr("Open best in explorer"))),
      resume_(new QPushButton(tr("Resume"))),
      like_(new QPushButton(tr("New run like this"))),
      unqueue_(new QPushButton(tr("Remove from queue"))) {
  scanner_ = new RunScanner(this);
  connect(scanner_, &RunScanner::summaryReady, this, &RunList::summaryArrived);
  connect(scanner_, &RunScanner::scanned, this, [this] {
    if (!isReading()) Q_EMIT summariesReady();
  });
  auto* choose = new QPushButton(tr("Folder…"));
  auto* refresh_button = new QPushButton(tr("Refresh"));
  choose->setToolTip(tr("Choose the folder that holds your run folders"));
  open_best_->setToolTip(tr("Load the run's best checkpoint (by validation BLEU-4) into the caption explorer"));
  resume_->setToolTip(tr("Continue a stopped run from its last checkpoint"));
  like_->setToolTip(tr("Open New run with this run's settings (in a new folder)"));
  root_label_->setWordWrap(true);
  root_label_->setStyleSheet("color: gray");
  list_->setObjectName("runs");
  list_->setAlternatingRowColors(true);
  list_->setWordWrap(true);  // a narrow list wraps a run's line instead of scrolling sideways
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // Wrapped lines are measured a few items per event-loop turn: a folder of many runs never
  // holds the GUI thread while its list is laid out.
  list_->setLayoutMode(QListView::Batched);
  list_->setBatchSize(8);

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("<b>Runs</b>")));
  top->addStretch();
  top->addWidget(choose);
  top->addWidget(refresh_button);
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(open_best_);
  bottom->addWidget(resume_);
  auto* bottom2 = new QHBoxLayout;
  bottom2->addWidget(like_);
  bottom2->addWidget(unqueue_);
  bottom2->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(root_label_);
  layout->addWidget(list_, 1);
  layout->addLayout(bottom);
  layout->addLayout(bottom2);

  connect(choose, &QPushButton::clicked, this, &RunList::chooseRoot);
  connect(refresh_button, &QPushButton::clicked, this, &RunList::refresh);
  connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem* it) {
    Q_EMIT runToggled(it->data(Qt::UserRole).toString(), it->checkState() == Qt::Checked);
  });
  connect(list_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* it) {
    updateButtons();
    if (it) Q_EMIT currentRunChanged(it->data(Qt::UserRole).toString());
  });
  connect(open_best_, &QPushButton::clicked, this, [this] {
    const auto dir = currentRun();
    const auto best = QString::fromStdString(fovea::best_checkpoint_path(dir.toStdString()));
    const auto last = QString::fromStdString(fovea::last_checkpoint_path(dir.toStdString()));
    if (!dir.isEmpty()) Q_EMIT openCheckpointRequested(QFileInfo::exists(best) ? best : last);
  });
  connect(resume_, &QPushButton::clicked, this, [this] {
    if (!currentRun().isEmpty()) Q_EMIT resumeRequested(currentRun());
  });
  unqueue_->setToolTip(tr("Take the selected queued run out of the queue (it will not start)"));
  connect(unqueue_, &QPushButton::clicked, this, [this] {
    if (queued_.contains(currentRun())) Q_EMIT unqueueRequested(currentRun());
  });
  connect(like_, &QPushButton::clicked, this, [this] {
    if (!currentRun().isEmpty()) Q_EMIT newRunLikeRequested(currentRun());
  });
  updateButtons();
}

void RunList::chooseRoot() {
  const auto dir = QFileDialog::getExistingDirectory(this, tr("Runs folder"), root_);
  if (!dir.isEmpty()) Q_EMIT rootChosen(QDir::cleanPath(dir));
}

void RunList::setRoot(const QString& root) {
  root_ = QDir::cleanPath(root);
  root_label_->setText(root_);
  root_label_->setToolTip(root_);
  refresh();
}

QListWidgetItem* RunList::item(const QString& dir) const {
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->data(Qt::UserRole).toString() == dir) return list_->item(i);
  }
  return nullptr;
}

void RunList::describe(QListWidgetItem* it) const {
  const auto dir = it->data(Qt::UserRole).toString();
  it->setText(summary(dir));
  it->setToolTip(dir);
  // A fixed height of three lines (the name, the summary and its wrap): without it the list lays
  // out the wrapped text of every run each time one line changes, which for a folder of 50 runs
  // held the GUI thread for tens of milliseconds while their summaries arrived.
  const int line = list_->fontMetrics().lineSpacing();
  if (it->sizeHint().height() != 3 * line + 6) it->setSizeHint(QSize(1, 3 * line + 6));
}

QString RunList::summary(const QString& dir) const {
  const auto name = QFileInfo(dir).fileName();
  if (queued_.contains(dir) && dir != live_) {
    const auto place = queued_.indexOf(dir) + 1;
    return place == 1 ? tr("%1\nqueued: starts when the run training now ends").arg(name)
                      : tr("%1\nqueued (%2 in line)").arg(name).arg(place);
  }
  if (dir == live_) {
    return tr("%1\n%2 · %3")
        .arg(name, live_line_.isEmpty() ? tr("starting") : live_line_, live_paused_ ? tr("❚❚ paused") : tr("● training"));
  }
  const auto found = summaries_.constFind(dir);
  if (found == summaries_.constEnd()) return tr("%1\nreading…").arg(name);
  const RunSummary& log = *found;
  if (!log.readable) return tr("%1 — unreadable: %2").arg(name, user_summary(log.error));
  QString state = log.finished ? tr("finished")
                  : log.failed ? tr("failed: %1").arg(log.failure.isEmpty() ? tr("reason unknown") : user_summary(log.failure))
                  : log.has_last_checkpoint ? tr("stopped, resumable") : tr("no checkpoint");
  QString line = tr("%1\n%2 · step %3").arg(name, log.hard ? tr("hard") : tr("soft")).arg(log.last_step);
  if (log.best_bleu4 >= 0) line += tr(" · BLEU-4 %1").arg(log.best_bleu4, 0, 'f', 3);
  return line + " · " + state;
}

bool RunList::isReading() const { return scanner_->pending() > 0 || scan_waits_; }

void RunList::scan(const QStringList& dirs) {
  if (painted_) return scanner_->scan(dirs);
  // Before the window's first frame, the worker reading the logs would take the cores that frame
  // needs: it starts once the list has painted (or shortly, for a list never shown).
  waiting_dirs_ = dirs;
  if (scan_waits_) return;
  scan_waits_ = true;
  QTimer::singleShot(kFirstFrameWaitMs, this, [this] { startWaitingScan(); });
}

void RunList::startWaitingScan() {
  if (!scan_waits_) return;
  scan_waits_ = false;
  scanner_->scan(waiting_dirs_);
  waiting_dirs_.clear();
}

void RunList::paintEvent(QPaintEvent* event) {
  QWidget::paintEvent(event);
  if (painted_) return;
  painted_ = true;
  if (scan_waits_) QTimer::singleShot(0, this, [this] { startWaitingScan(); });
}

void RunList::summaryArrived(const RunSummary& summary) {
  summaries_.insert(summary.dir, summary);
  if (auto* it = item(summary.dir)) {
    list_->blockSignals(true);  // a text change is not a check toggle
    describe(it);
    list_->blockSignals(false);
  }
  if (summary.dir == currentRun()) updateButtons();
}

void RunList::refresh() {
  QStringList checked = checkedRuns();
  const auto current = currentRun();
  list_->blockSignals(true);
  list_->clear();
  QStringList dirs;
  if (!root_.isEmpty()) {
    for (const auto& d : fovea::find_runs(root_.toStdString())) dirs << QDir::cleanPath(QString::fromStdString(d));
  }
  if (!live_.isEmpty() && !dirs.contains(live_)) dirs << live_;
  for (const auto& dir : dirs) {
    auto* it = new QListWidgetItem(list_);
    it->setData(Qt::UserRole, dir);
    it->setFlags(it->flags() | Qt::ItemIsUserCheckable);
    it->setCheckState(checked.contains(dir) ? Qt::Checked : Qt::Unchecked);
    describe(it);
    if (dir == current) list_->setCurrentItem(it);
  }
  for (const auto& dir : queued_) {  // not on disk yet: no box to tick, nothing to read
    if (dirs.contains(dir)) continue;
    auto* it = new QListWidgetItem(list_);
    it->setData(Qt::UserRole, dir);
    it->setForeground(palette().color(QPalette::PlaceholderText));
    describe(it);
    if (dir == current) list_->setCurrentItem(it);
  }
  list_->blockSignals(false);
  updateButtons();
  QStringList read = dirs;
  read.removeAll(live_);  // the live run's line comes from its progress, not its lagging log
  scan(read);
}

QStringList RunList::runs() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i) {
    const auto dir = list_->item(i)->data(Qt::UserRole).toString();
    if (!queued_.contains(dir) || dir == live_) out << dir;
  }
  return out;
}

QStringList RunList::checkedRuns() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->checkState() == Qt::Checked) out << list_->item(i)->data(Qt::UserRole).toString();
  }
  return out;
}

void RunList::setChecked(const QString& dir, bool checked) {
  if (auto* it = item(QDir::cleanPath(dir))) it->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

QString RunList::currentRun() const {
  auto* it = list_->currentItem();
  return it ? it->data(Qt::UserRole).toString() : QString();
}

void RunList::setCurrentRun(const QString& dir) {
  if (auto* it = item(QDir::cleanPath(dir))) list_->setCurrentItem(it);
}

void RunList::setLiveRun(const QString& dir) {
  live_ = dir.isEmpty() ? QString() : QDir::cleanPath(dir);
  live_line_.clear();
  live_paused_ = false;
  refresh();
}

void RunList::setLiveProgress(const QString& line, bool paused) {
  if (live_.isEmpty() || (line == live_line_ && paused == live_paused_)) return;
  const bool pause_changed = paused != live_paused_;
  live_line_ = line;
  live_paused_ = paused;
  if (auto* it = item(live_)) {
    list_->blockSignals(true);  // a text change is not a check toggle
    describe(it);
    list_->blockSignals(false);
  }
  if (pause_changed) updateButtons();
}

void RunList::setLivePaused(bool paused) {
  if (live_.isEmpty() || paused == live_paused_) return;
  live_paused_ = paused;
  if (auto* it = item(live_)) {
    list_->blockSignals(true);
    describe(it);
    list_->blockSignals(false);
  }
  updateButtons();
}

void RunList::setQueuedRuns(const QStringList& dirs) {
  QStringList clean;
  for (const auto& d : dirs) clean << QDir::cleanPath(d);
  if (clean == queued_) return;
  queued_ = clean;
  refresh();
}

void RunList::updateButtons() {
  const auto dir = currentRun();
  const auto path = dir.toStdString();
  open_best_->setEnabled(!dir.isEmpty() && QFileInfo::exists(QString::fromStdString(fovea::best_checkpoint_path(path))));
  bool resumable = !dir.isEmpty() && dir != live_ && QFileInfo::exists(QString::fromStdString(fovea::last_checkpoint_path(path)));
  bool failed = false;
  if (resumable) {  // a finished run has nothing left to resume; a failed one would fail again
    const auto found = summaries_.constFind(dir);
    failed = found != summaries_.constEnd() && found->failed;
    resumable = found != summaries_.constEnd() && found->readable && !found->finished && !found->failed;
  }
  const bool live_paused = !dir.isEmpty() && dir == live_ && live_paused_;
  const bool queued = queued_.contains(dir) && dir != live_;
  unqueue_->setVisible(!queued_.isEmpty());
  unqueue_->setEnabled(queued);
  resume_->setEnabled(resumable || live_paused);
  resume_->setToolTip(live_paused ? tr("Go on training this paused run (as Resume in the toolbar)")
                      : failed ? tr("This run failed: resuming it would meet the same error. Use New run like this and "
                                  "change the setting that failed it.")
                             : tr("Continue a stopped run from its last checkpoint"));
  like_->setText(failed ? tr("New run like this (to change a setting)") : tr("New run like this"));
  like_->setEnabled(!dir.isEmpty() && QFileInfo::exists(QString::fromStdString(fovea::config_path(path))));
}

}  // namespace fovea::ui
