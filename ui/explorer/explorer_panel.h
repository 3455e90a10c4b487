#pragma once
/// One model's view of the current image: which model it is, the image with the α overlay,
/// the caption strip and a read-out of the current word. Owns its ModelSession, so two panels
/// compare two models side by side.
#include <QImage>
#include <QWidget>

#include "core/decode/caption_result.h"
#include "core/decode/probe.h"
#include "core/render/heatmap.h"
#include "ui/explorer/model_session.h"

class QBoxLayout;
class QLabel;
class QPushButton;
class QScrollArea;

namespace fovea::ui {

class AttentionView;
class CaptionStrip;
class LiveText;
class PanelNotes;

/// How a model file is named in a panel's header: its file name, with the run folder for a run's
/// checkpoints (two runs' best.ckpt side by side).
QString model_file_title(const QString& path);

class ExplorerPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ExplorerPanel(QWidget* parent = nullptr);

  void loadModel(const QString& path);
  /// What this panel's model is to the user in messages ("the model", "the model to compare with").
  void setModelRole(const QString& role) { model_role_ = role; }
  /// For a short screen: the words and their notes beside the image instead of under it, so the
  /// image keeps the panel's height.
  void setCompact(bool compact);
  void setImage(const QImage& image);
  /// A webcam frame: shown at once; captioned when the model is free (the last caption stays meanwhile).
  void setLiveFrame(const QImage& frame);
  /// A frame of the live source with the caption shown on it and that frame's α (core/decode/
  /// caption_stabiliser.h): both shown at once; the selected word stays selected.
  void showLiveFrame(const QImage& frame, const fovea::CaptionResult& caption);
  void setCaptionOptions(const fovea::CaptionOptions& options);
  /// Non-empty: show where the model looks for this caption (teacher forcing); empty: its own caption.
  void setUserCaption(const QString& text);
  /// Selects word `index` (the player's current word).
  void setWordIndex(int index);
  /// Shows word `index`'s α and numbers while the pointer rests on its chip, without selecting
  /// it; -1 shows the selected word again. Ignored while a probe or a take-away is shown.
  void previewWord(int index);
  /// The selected word (the preview does not change it).
  int selectedWord() const;
  void setOverlayStyle(const fovea::OverlayStyle& style);
  /// Asks what the model would say at the current word (after the words before it; with no word
  /// selected, as the first word) looking at `region` (image pixels): the view shows the forced α,
  /// a line under the words the most probable words, until another word is selected.
  void probeRegion(const fovea::ProbeRegion& region);
  /// The probe's line (rich text); empty when no probe is shown.
  QString probeText() const;
  /// Removes a probe's or a take-away's result and shows the word's own α again (Escape, or a
  /// right-click on the image).
  void dismissNotes();
  /// "Take it away" for the current word: the image without the cells holding most of its α,
  /// and without as many cells elsewhere (the control), each scored and recaptioned; the view
  /// shows the first, a line under the words what both did to the word, until the word changes.
  void takeAwayWord();
  /// The take-away's line (rich text); empty when none is shown.
  QString takeAwayText() const;
  QPushButton* takeAwayButton() const { return take_away_button_; }
  /// The warning shown when the image is unlike the model's training images; empty otherwise.
  QString unfamiliarText() const;

  AttentionView* view() const { return view_; }
  CaptionStrip* strip() const { return strip_; }
  ModelSession* session() const { return session_; }
  const fovea::CaptionResult& caption() const { return caption_; }
  /// The image's reference captions under the words, with how the caption shown scores
  /// against them; none hides the line.
  void showReferences(const QStringList& references, double bleu4, double cider);
  QString referencesText() const;
  bool hasCaption() const { return has_caption_; }
  bool isBusy() const { return session_->isBusy(); }
  QString modelPath() const;
  /// The header above the image: the model's name and summary, or what is loading.
  QString titleText() const;
  /// The header's tooltip: the model card.
  QString titleToolTip() const;

 Q_SIGNALS:
  void captionShown(int words);
  void wordClicked(int index);
  void wordHovered(int index);
  /// A probe or a take-away of the selected word began: the word (and a playing video) should stay.
  void wordHeld();
  void errorOccurred(const QString& message);
  /// A model did not load (the message names it); the panel goes on with the one it had.
  void modelFailed(const QString& message);
  void modelLoaded(const fovea::ui::ModelDescription& model);

 private:
  void showModelTitle(const ModelDescription& m);
  void request();
  void showReply(const CaptionReply& reply);
  void updateReadout();
  void showReadout(int word);
  void showProbe(const ProbeReply& reply);
  void clearProbe();
  void showTakeAway(const TakeAwayReply& reply);
  void clearTakeAway();
  void updateTakeAwayButton();
  void setTitle(const QString& rich_text, const QString& tool_tip = {});
  /// Scrolls the strip's space to word `index`'s chip.
  void showChip(int index);

  ModelSession* session_;
  LiveText* title_;  ///< one line, cut with an ellipsis: a long name or summary takes no row from the image
  AttentionView* view_;
  QBoxLayout* body_;   ///< the image and details_: one under the other, or side by side (setCompact)
  QWidget* details_;   ///< the words, the word's numbers and the notes
  CaptionStrip* strip_;
  /// The strip in a space of kCaptionRows rows of chips, whatever the caption: a longer one
  /// scrolls there, so the image's size depends on the window only.
  QScrollArea* strip_space_;
  LiveText* readout_;  ///< the current word's numbers (changes 8 times a second while playing)
  QPushButton* take_away_button_;
  QLabel* unfamiliar_;  ///< the image is unlike the model's training images: a badge on the title's line
  QString unfamiliar_text_;
  /// Under the words, in a space that keeps its height: the probe's next words, what taking the
  /// word's attended cells away did, or the ground truth when the folder has a captions.json.
  PanelNotes* notes_;
  QImage image_;
  fovea::CaptionOptions options_;
  QString user_caption_;
  QString model_role_ = tr("the model");
  fovea::CaptionResult caption_;
  bool has_caption_ = false;
  bool scored_ = false;
  quint64 latest_ = 0;
  quint64 probe_latest_ = 0;
  quint64 take_away_latest_ = 0;
  QString probe_prefix_;
  fovea::ProbeRegion probe_region_;
  double last_ms_ = 0;
};

}  // namespace fovea::ui
