#pragma once
// Shared by fovea-studio's UI tests: finding the dialog or message a window has just shown.
#include <QApplication>
#include <QWidget>

namespace fovea::test_ui {

/// The first visible top-level widget of type T (a message box, a progress dialog); null when
/// none shows.
template <class T>
T* shownTopLevel() {
  for (QWidget* w : QApplication::topLevelWidgets())
    if (auto* t = qobject_cast<T*>(w); t && t->isVisible()) return t;
  return nullptr;
}

}  // namespace fovea::test_ui
