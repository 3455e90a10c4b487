#include "ui/common/window_fit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QWidget>

#include <algorithm>

namespace fovea::ui {

QRect fit_geometry(const QRect& available, const QSize& preferred, const QRect& saved) {
  const QSize room = (available.size() - kFrameAllowance).expandedTo(QSize(200, 150));
  const QSize want = saved.isValid() ? saved.size() : preferred;
  const QSize size = want.boundedTo(room);
  const int left = kFrameAllowance.width() / 2, top = kFrameAllowance.height() - kFrameAllowance.width() / 2;
  QRect rect(QPoint(), size);
  const QRect inner = available.adjusted(left, top, -(kFrameAllowance.width() - left), -(kFrameAllowance.height() - top));
  if (saved.isValid() && inner.contains(QRect(saved.topLeft(), size))) {
    rect.moveTopLeft(saved.topLeft());
  } else {
    rect.moveCenter(inner.center());
    rect.moveLeft(std::max(rect.left(), inner.left()));
    rect.moveTop(std::max(rect.top(), inner.top()));
  }
  return rect;
}

void fit_to_screen(QWidget* window, const QSize& preferred, const QString& settings_key) {
  QRect saved;
  if (!settings_key.isEmpty()) saved = QSettings().value(settings_key).toRect();
  const QScreen* screen = nullptr;
  if (saved.isValid()) screen = QGuiApplication::screenAt(saved.center());
  if (screen == nullptr && window->parentWidget() != nullptr) screen = window->parentWidget()->screen();
  if (screen == nullptr) screen = window->screen();
  if (screen == nullptr) screen = QGuiApplication::primaryScreen();
  if (screen == nullptr) {
    window->resize(preferred);
    return;
  }
  window->setGeometry(fit_geometry(screen->availableGeometry(), preferred, saved));
}

void remember_geometry(const QWidget* window, const QString& settings_key) {
  if (!settings_key.isEmpty()) QSettings().setValue(settings_key, window->geometry());
}

}  // namespace fovea::ui
