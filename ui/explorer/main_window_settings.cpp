// MainWindow's remembered view: the decoding, overlay and playback choices, the window's size and
// place, the model last loaded, and (session_memory.h) the image or folder shown and compare mode, kept from one session to the next (QSettings, "view/...").
// fovea-studio restores them at start, except for a --screenshot, which renders with the defaults.
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>

#include "ui/common/settings_writer.h"
#include "ui/common/window_fit.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/session_memory.h"

namespace fovea::ui {

namespace {
const QString kBeam = QStringLiteral("view/beam"), kGreedy = QStringLiteral("view/greedy"),
              kOverlay = QStringLiteral("view/overlay"), kOpacity = QStringLiteral("view/opacity"),
              kSmooth = QStringLiteral("view/smooth"), kSpeed = QStringLiteral("view/speed"),
              kGeometry = QStringLiteral("view/geometry"), kModel = QStringLiteral("view/model");
}  // namespace

void MainWindow::restoreView() {
  const QSettings s;
  if (s.contains(kBeam)) beam_->setValue(s.value(kBeam).toInt());  // clamped to its range by the box
  greedy_->setChecked(s.value(kGreedy, greedy_->isChecked()).toBool());
  if (const int i = colormap_->findText(s.value(kOverlay).toString()); i >= 0) colormap_->setCurrentIndex(i);
  if (s.contains(kOpacity)) opacity_->setValue(s.value(kOpacity).toInt());
  smooth_->setChecked(s.value(kSmooth, smooth_->isChecked()).toBool());
  if (s.contains(kSpeed)) speed_->setValue(s.value(kSpeed).toInt());
  fit_to_screen(this, size(), kGeometry);  // a saved size from a larger screen is made to fit this one
}

void MainWindow::rememberView() const {
  remember_setting(kBeam, beam_->value());
  remember_setting(kGreedy, greedy_->isChecked());
  remember_setting(kOverlay, colormap_->currentText());
  remember_setting(kOpacity, opacity_->value());
  remember_setting(kSmooth, smooth_->isChecked());
  remember_setting(kSpeed, speed_->value());
  remember_geometry(this, kGeometry);
  remember_session(*this);  // the image or folder shown, and compare mode
}

QString MainWindow::rememberedModel() const {
  const QString path = QSettings().value(kModel).toString();
  return !path.isEmpty() && QFileInfo(path).isFile() ? path : QString();
}

void MainWindow::rememberModel(const QString& path) { remember_setting(kModel, QFileInfo(path).absoluteFilePath()); }

}  // namespace fovea::ui
