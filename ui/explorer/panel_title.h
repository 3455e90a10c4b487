#pragma once
/// A panel's header: the model's name and summary (its card as the tooltip), what is loading, or
/// that there is none; beside it a badge when the image is unlike the model's training images.
/// One line high always, whatever it shows, so the image under it keeps its size.
#include <QString>
#include <QWidget>

#include <optional>

#include "core/decode/caption_result.h"

class QLabel;

namespace fovea::ui {

class LiveText;
struct ModelDescription;

/// How a model file is named in a panel's header: its file name, with the run folder for a run's
/// checkpoints (two runs' best.ckpt side by side).
QString model_file_title(const QString& path);

class PanelTitle : public QWidget {
  Q_OBJECT
 public:
  explicit PanelTitle(QWidget* parent = nullptr);

  /// What the panel's model is to the user in messages ("the model", "the model to compare with").
  void setModelRole(const QString& role) { model_role_ = role; }
  void showLoading(const QString& path);
  void showModel(const ModelDescription& model);
  /// After `path` failed to load: names the model still loaded (`kept`, if any) again, and
  /// returns the message for the user, naming the model by its role.
  QString showFailure(const ModelDescription* kept, const QString& path, const QString& error);
  /// The badge, when `familiarity` says the image is unlike the training images of the model
  /// at `model_path`; hidden otherwise.
  void showFamiliarity(const std::optional<fovea::Familiarity>& familiarity, const QString& model_path);

  /// The header's rich text: the model's name and summary, or what is loading.
  QString text() const;
  /// The header's tooltip: the model card.
  QString textToolTip() const;
  /// The warning shown when the image is unlike the model's training images; empty otherwise.
  QString unfamiliarText() const;

 private:
  void setTitle(const QString& rich_text, const QString& tool_tip = {});

  LiveText* title_;  ///< one line, cut with an ellipsis: a long name or summary takes no row from the image
  QLabel* unfamiliar_;
  QString unfamiliar_text_;
  QString model_role_ = tr("the model");
};

}  // namespace fovea::ui
