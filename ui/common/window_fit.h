#pragma once
/// Every top-level window fits the screen it opens on: its preferred size shrinks to the screen's
/// available area (leaving room for the window manager's frame), and a size saved from a larger
/// screen is clamped the same way before it is restored.
#include <QRect>
#include <QSize>
#include <QString>

class QWidget;

namespace fovea::ui {

/// Room a window manager's title bar and borders take around a window before it is shown.
inline constexpr QSize kFrameAllowance{16, 48};

/// The geometry (client area) for a window of `preferred` size on a screen whose available area
/// is `available`: as large as preferred (or `saved`, when valid) but inside the area with
/// kFrameAllowance to spare; `saved`'s position is kept when the window fits there, otherwise
/// the window is centred.
QRect fit_geometry(const QRect& available, const QSize& preferred, const QRect& saved = {});

/// Sizes and places `window` with fit_geometry on the screen it opens on; with a
/// `settings_key`, the geometry saved there by remember_geometry (if any) is restored, clamped.
void fit_to_screen(QWidget* window, const QSize& preferred, const QString& settings_key = {});
/// Saves `window`'s geometry under `settings_key` (QSettings), for fit_to_screen next time.
void remember_geometry(const QWidget* window, const QString& settings_key);

}  // namespace fovea::ui
