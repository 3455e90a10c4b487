#include "ui/training/sample_gallery.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/common/attention_view.h"
#include "ui/common/live_text.h"
#include "ui/common/word_player.h"

namespace fovea::ui {

SampleGallery::SampleGallery(QWidget* parent)
    : QWidget(parent),
      grid_(new QGridLayout),
      slider_(new QSlider(Qt::Horizontal)),
      step_label_(new QLabel),
      placeholder_(new QLabel(tr("Captions of fixed validation images appear here while the model trains."))),
      player_(new WordPlayer(this)) {
  auto* top = new QVBoxLayout;  // title over the step: the column stays narrow on small screens
  auto* title = new QLabel(tr("<b>Validation samples</b>"));
  step_label_->setWordWrap(true);
  top->addWidget(title);
  top->addWidget(step_label_);
  slider_->setEnabled(false);
  slider_->setToolTip(tr("Pick an earlier snapshot"));
  placeholder_->setWordWrap(true);
  placeholder_->setStyleSheet("color: gray");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(slider_);
  layout->addWidget(placeholder_);
  layout->addLayout(grid_);
  layout->addStretch();
  connect(slider_, &QSlider::valueChanged, this, &SampleGallery::showSnapshot);
  connect(player_, &WordPlayer::currentChanged, this, &SampleGallery::showWord);
  player_->setWordsPerSecond(1.5);
}

QString SampleGallery::note() const { return placeholder_->isHidden() ? QString() : placeholder_->text(); }

void SampleGallery::clear(const QString& note) {
  placeholder_->setText(note.isEmpty() ? tr("Captions of fixed validation images appear here while the model trains.") : note);
  history_.clear();
  shown_ = -1;
  slider_->setEnabled(false);
  step_label_->clear();
  for (auto* v : views_) v->hide();
  for (auto* l : labels_) l->hide();
  placeholder_->show();
  player_->setCount(0);
  player_->pause();
}

void SampleGallery::setHistory(const std::vector<fovea::SampleRecord>& records) {
  clear();
  history_ = records;
  if (history_.empty()) return;
  slider_->blockSignals(true);
  slider_->setRange(0, int(history_.size()) - 1);
  slider_->setValue(int(history_.size()) - 1);
  slider_->blockSignals(false);
  slider_->setEnabled(history_.size() > 1);
  showSnapshot(int(history_.size()) - 1);
}

void SampleGallery::addRecord(const fovea::SampleRecord& record) {
  const bool follow = shown_ < 0 || shown_ == int(history_.size()) - 1;
  history_.push_back(record);
  slider_->blockSignals(true);
  slider_->setRange(0, int(history_.size()) - 1);
  if (follow) slider_->setValue(int(history_.size()) - 1);
  slider_->blockSignals(false);
  slider_->setEnabled(history_.size() > 1);
  if (follow) showSnapshot(int(history_.size()) - 1);
}

QImage SampleGallery::imageAt(const std::string& path) {
  const auto key = QString::fromStdString(path);
  auto it = images_.find(key);
  if (it == images_.end()) it = images_.insert(key, QImage(key));
  return *it;
}

void SampleGallery::ensureViews(std::size_t count) {
  while (std::size_t(views_.size()) < count) {
    const int i = int(views_.size());
    auto* view = new AttentionView;
    view->setMinimumWidth(120);
    view->setFixedHeight(170);  // image and caption stay together; the column scrolls no further
    auto* label = new LiveText(5);  // four objects' caption in a ~165 px column
    grid_->addWidget(view, (i / 2) * 2, i % 2);
    grid_->addWidget(label, (i / 2) * 2 + 1, i % 2);
    views_ << view;
    labels_ << label;
  }
}

void SampleGallery::showSnapshot(int index) {
  if (index < 0 || index >= int(history_.size())) return;
  shown_ = index;
  const auto& record = history_[std::size_t(index)];
  step_label_->setText(tr("step %1 (snapshot %2 of %3)").arg(record.step).arg(index + 1).arg(history_.size()));
  placeholder_->hide();
  ensureViews(record.captions.size());
  int longest = 0;
  for (int i = 0; i < int(views_.size()); ++i) {
    const bool used = i < int(record.captions.size());
    views_[i]->setVisible(used);
    labels_[i]->setVisible(used);
    if (!used) continue;
    views_[i]->setImage(imageAt(record.image_paths[std::size_t(i)]));
    views_[i]->setCaption(record.captions[std::size_t(i)]);
    longest = std::max(longest, int(record.captions[std::size_t(i)].words.size()));
  }
  player_->setCount(longest);
  showWord(player_->current());
  if (longest > 0 && !player_->isPlaying()) player_->play();
}

void SampleGallery::showWord(int index) {
  if (shown_ < 0) return;
  const auto& record = history_[std::size_t(shown_)];
  for (int i = 0; i < int(record.captions.size()) && i < int(views_.size()); ++i) {
    const auto& words = record.captions[std::size_t(i)].words;
    const int w = words.empty() ? -1 : std::min(index, int(words.size()) - 1);
    views_[i]->setWordIndex(w);
    QStringList html;
    for (int k = 0; k < int(words.size()); ++k) {
      const auto word = QString::fromStdString(words[std::size_t(k)].word).toHtmlEscaped();
      html << (k == w ? "<b><u>" + word + "</u></b>" : word);
    }
    labels_[i]->setText(html.isEmpty() ? tr("<i>(empty caption)</i>") : html.join(' '));
  }
}

QStringList SampleGallery::captions() const {
  QStringList out;
  if (shown_ < 0) return out;
  for (const auto& c : history_[std::size_t(shown_)].captions) out << QString::fromStdString(c.text());
  return out;
}

}  // namespace fovea::ui
