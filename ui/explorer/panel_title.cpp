#include "ui/explorer/panel_title.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>

#include <algorithm>

#include "core/io/model_name.h"
#include "ui/common/live_text.h"
#include "ui/explorer/model_session.h"

namespace fovea::ui {

QString model_file_title(const QString& path) {
  // A run's checkpoints are all best.ckpt or last.ckpt: the run folder tells two apart.
  const QFileInfo file(path);
  const bool in_run = QFileInfo::exists(file.dir().filePath(QStringLiteral("metrics.jsonl")));
  return in_run ? file.dir().dirName() + QLatin1Char('/') + file.fileName() : file.fileName();
}

PanelTitle::PanelTitle(QWidget* parent) : QWidget(parent), title_(new LiveText), unfamiliar_(new QLabel) {
  setTitle(tr("<b>No model</b>"));
  unfamiliar_->setObjectName("unfamiliar");
  unfamiliar_->setText(tr("⚠ unlike its training images"));
  unfamiliar_->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #664d03; padding: 0px 4px; border-radius: 3px; }"));
  unfamiliar_->hide();
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(title_, 1);
  layout->addWidget(unfamiliar_);
  // One line high whether the warning shows or not (the image jumped as it came and went).
  setFixedHeight(std::max(title_->sizeHint().height(), unfamiliar_->sizeHint().height()));
}

void PanelTitle::showLoading(const QString& path) {
  setTitle(tr("<b>Loading %1…</b>").arg(QFileInfo(path).fileName().toHtmlEscaped()));
}

void PanelTitle::showModel(const ModelDescription& m) {
  setTitle(QStringLiteral("<b>%1</b> &nbsp;<span style='color:gray'>%2</span>")
               .arg(model_file_title(m.path).toHtmlEscaped(), m.summary.toHtmlEscaped()),
           m.card);
}

QString PanelTitle::showFailure(const ModelDescription* kept, const QString& path, const QString& error) {
  // The model loaded before (if any) goes on captioning: the header names it again.
  if (kept) showModel(*kept);
  else setTitle(tr("<b>No model</b> (the last one failed to load)"));
  // The core's messages start with the file's path: say it once.
  const QString why = error.startsWith(path + QStringLiteral(": ")) ? error.mid(path.size() + 2) : error;
  return tr("Could not load %1 %2: %3").arg(model_role_, path, why);
}

void PanelTitle::showFamiliarity(const std::optional<fovea::Familiarity>& familiarity, const QString& model_path) {
  if (!familiarity || familiarity->familiar()) {
    unfamiliar_->hide();
    return;
  }
  unfamiliar_text_ = tr("⚠ This image is unlike what %1 was trained on: its caption is unreliable.")
                         .arg(QString::fromStdString(model_display_name(model_path.toStdString())));
  unfamiliar_->setToolTip(unfamiliar_text_ + QLatin1Char('\n') +
                          tr("Distance of its features from the training images: %1; 99% of validation images "
                             "are within %2, the limit is %3.")
                              .arg(familiarity->distance, 0, 'f', 1)
                              .arg(familiarity->validation_q99, 0, 'f', 1)
                              .arg(familiarity->threshold, 0, 'f', 1));
  unfamiliar_->show();
}

QString PanelTitle::text() const { return title_->text(); }

QString PanelTitle::textToolTip() const { return title_->toolTip(); }

QString PanelTitle::unfamiliarText() const { return unfamiliar_->isHidden() ? QString() : unfamiliar_text_; }

void PanelTitle::setTitle(const QString& rich_text, const QString& tool_tip) {
  title_->setText(rich_text);
  if (!tool_tip.isEmpty()) title_->setToolTip(tool_tip);  // else the whole text, for when it is cut
}

}  // namespace fovea::ui
