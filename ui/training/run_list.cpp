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
#include "ui/training/run_actions.h"
#include "ui/training/run_scanner.h"

namespace fovea::ui {

RunList::RunList(QWidget* parent)
    : QWidget(parent),
      root_label_(new QLabel),
      list_(new QListWidget),
      actions_(new RunActions) {
  scanner_ = new RunScanner(this);
  connect(scanner_, &RunScanner::summaryReady, this, &RunList::summaryArrived);
  connect(scanner_, &RunScanner::scanned, this, [this] {
    if (!isReading()) Q_EMIT summariesReady();
  });
  auto* choose = new QPushButton(tr("Folder…"));
  auto* refresh_button = new QPushButton(tr("Refresh"));
  choose->setToolTip(tr("Choose the folder that holds your run folders"));
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
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(root_label_);
  layout->addWidget(list_, 1);
  layout->addWidget(actions_);

  connect(choose, &QPushButton::clicked, this, &RunList::chooseRoot);
  connect(refresh_button, &QPushButton::clicked, this, &RunList::refresh);
  connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem* it) {
    Q_EMIT runToggled(it->data(Qt::UserRole).toString(), it->checkState() == Qt::Checked);
  });
  connect(list_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* it) {
    updateActions();
    if (it) Q_EMIT currentRunChanged(it->data(Qt::UserRole).toString());
  });
  updateActions();
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
  line += best_validation_text(log.best);
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
  if (summary.dir == currentRun()) updateActions();
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
  updateActions();
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
  if (pause_changed) updateActions();
}

void RunList::setLivePaused(bool paused) {
  if (live_.isEmpty() || paused == live_paused_) return;
  live_paused_ = paused;
  if (auto* it = item(live_)) {
    list_->blockSignals(true);
    describe(it);
    list_->blockSignals(false);
  }
  updateActions();
}

void RunList::setQueuedRuns(const QStringList& dirs) {
  QStringList clean;
  for (const auto& d : dirs) clean << QDir::cleanPath(d);
  if (clean == queued_) return;
  queued_ = clean;
  refresh();
}

void RunList::updateActions() {
  const auto dir = currentRun();
  const auto found = summaries_.constFind(dir);
  RunActions::Selection selected;
  selected.dir = dir;
  selected.live = !dir.isEmpty() && dir == live_;
  selected.live_paused = selected.live && live_paused_;
  selected.queued = queued_.contains(dir) && dir != live_;
  selected.any_queued = !queued_.isEmpty();
  selected.summary = found != summaries_.constEnd() ? &*found : nullptr;
  actions_->offerFor(selected);
}

}  // namespace fovea::ui
