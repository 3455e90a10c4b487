// The decoding and overlay controls of the studio's bottom toolbar.
#include "ui/explorer/decoding_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QToolBar>

#include "ui/common/settings_writer.h"

namespace fovea::ui {

namespace {
const QString kBeam = QStringLiteral("view/beam"), kGreedy = QStringLiteral("view/greedy"),
              kOverlay = QStringLiteral("view/overlay"), kOpacity = QStringLiteral("view/opacity"),
              kSmooth = QStringLiteral("view/smooth");
}  // namespace

DecodingControls::DecodingControls(QToolBar* bar) : QObject(bar) {
  addDecoding(bar);
  bar->addSeparator();
  addOverlay(bar);
}

void DecodingControls::addDecoding(QToolBar* bar) {
  beam_ = new QSpinBox;
  beam_->setObjectName(QStringLiteral("beam"));
  const auto& beam = fovea::caption_setting("beam");  // the range every command takes
  beam_->setRange(int(beam.min), int(beam.max));
  beam_->setValue(3);
  beam_->setPrefix(tr("beam "));
  beam_->setToolTip(tr("Beam width"));
  greedy_ = new QCheckBox(tr("greedy"));
  sample_glimpses_ = new QCheckBox(tr("sampled glimpses"));
  sample_glimpses_->setToolTip(tr("Hard attention: sample one glimpse per word instead of using the expected \u03B1"));
  sample_glimpses_->setEnabled(false);  // until a hard model is shown (setHardAttentionShown)
  connect(beam_, &QSpinBox::valueChanged, this, &DecodingControls::decodingChanged);
  connect(greedy_, &QCheckBox::toggled, this, &DecodingControls::decodingChanged);
  connect(sample_glimpses_, &QCheckBox::toggled, this, &DecodingControls::decodingChanged);
  bar->addWidget(beam_);
  bar->addWidget(greedy_);
  bar->addWidget(sample_glimpses_);
}

void DecodingControls::addOverlay(QToolBar* bar) {
  colormap_ = new QComboBox;
  colormap_->setObjectName(QStringLiteral("overlay"));
  for (const auto& name : fovea::colormap_names()) colormap_->addItem(QString::fromStdString(name));
  colormap_->setToolTip(tr("How attention is drawn: spotlight darkens the image outside it (its colours stay readable); "
                           "the colormaps paint a heat layer over it"));
  opacity_ = new QSlider(Qt::Horizontal);
  opacity_->setRange(0, 100);
  opacity_->setValue(60);
  opacity_->setFixedWidth(90);
  opacity_->setToolTip(tr("Overlay strength (spotlight: how dark the unattended image gets)"));
  smooth_ = new QCheckBox(tr("smooth"));
  smooth_->setObjectName(QStringLiteral("smooth"));
  smooth_->setChecked(true);
  smooth_->setToolTip(tr("Smooth upsampling of \u03B1; off: one block per attention cell"));
  const auto changed = [this] { Q_EMIT overlayStyleChanged(overlayStyle()); };
  connect(colormap_, &QComboBox::currentIndexChanged, this, changed);
  connect(opacity_, &QSlider::valueChanged, this, changed);
  connect(smooth_, &QCheckBox::toggled, this, changed);
  bar->addWidget(colormap_);
  bar->addWidget(new QLabel(tr(" strength ")));
  bar->addWidget(opacity_);
  bar->addWidget(smooth_);
}

fovea::CaptionChoices DecodingControls::choices() const {
  fovea::CaptionChoices c;
  c.beam = beam_->value();
  c.greedy = greedy_->isChecked();
  c.sample_glimpses = sample_glimpses_->isChecked();
  return c;
}

fovea::CaptionOptions DecodingControls::captionOptions() const { return choices().options(); }

fovea::OverlayStyle DecodingControls::overlayStyle() const {
  fovea::OverlayStyle s;
  s.colormap = fovea::parse_colormap(colormap_->currentText().toStdString());
  s.opacity = opacity_->value() / 100.0f;
  s.smooth = smooth_->isChecked();
  return s;
}

void DecodingControls::decodingChanged() {
  beam_->setEnabled(!greedy_->isChecked());
  Q_EMIT captionOptionsChanged(captionOptions());
}

void DecodingControls::setBeam(int beam) {
  greedy_->setChecked(beam <= 1);
  if (beam > 1) beam_->setValue(beam);
}

void DecodingControls::setSampleGlimpses(bool on) { sample_glimpses_->setChecked(on); }

void DecodingControls::setHardAttentionShown(bool hard) {
  sample_glimpses_->setEnabled(hard);
  sample_glimpses_->setToolTip(hard ? tr("Hard attention: sample one glimpse per word instead of using the expected \u03B1")
                                    : tr("Only hard-attention models sample glimpses; the model shown is soft"));
}

bool DecodingControls::glimpseSwitchEnabled() const { return sample_glimpses_->isEnabled(); }

void DecodingControls::restore() {
  const QSettings s;
  if (s.contains(kBeam)) beam_->setValue(s.value(kBeam).toInt());  // clamped to its range by the box
  greedy_->setChecked(s.value(kGreedy, greedy_->isChecked()).toBool());
  if (const int i = colormap_->findText(s.value(kOverlay).toString()); i >= 0) colormap_->setCurrentIndex(i);
  if (s.contains(kOpacity)) opacity_->setValue(s.value(kOpacity).toInt());
  smooth_->setChecked(s.value(kSmooth, smooth_->isChecked()).toBool());
}

void DecodingControls::remember() const {
  remember_setting(kBeam, beam_->value());
  remember_setting(kGreedy, greedy_->isChecked());
  remember_setting(kOverlay, colormap_->currentText());
  remember_setting(kOpacity, opacity_->value());
  remember_setting(kSmooth, smooth_->isChecked());
}

}  // namespace fovea::ui
