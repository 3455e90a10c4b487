#include "ui/explorer/compact_layout.h"

#include <QEvent>
#include <QToolBar>

#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/thumbnail_strip.h"

namespace fovea::ui {

CompactLayout::CompactLayout(MainWindow* window) : QObject(window), window_(window) {
  window->installEventFilter(this);
  apply(window->height() < kBelowHeight);
}

bool CompactLayout::eventFilter(QObject* watched, QEvent* event) {
  if (watched == window_ && event->type() == QEvent::Resize) {
    const bool compact = window_->height() < kBelowHeight;
    if (compact != compact_) apply(compact);
  }
  return false;
}

void CompactLayout::apply(bool compact) {
  compact_ = compact;
  window_->primaryPanel()->setCompact(compact);
  window_->comparePanel()->setCompact(compact);
  window_->thumbnails()->setCompact(compact);
  if (auto* main_bar = window_->findChild<QToolBar*>(QStringLiteral("mainToolbar"), Qt::FindDirectChildrenOnly))
    main_bar->setVisible(!compact);
}

}  // namespace fovea::ui
