#pragma once
/// One model's view of the current image: which model it is, the image with the α overlay,
/// the caption strip and a read-out of the current word. Owns its ModelSession, so two panels
/// compare two models side by side.
#include <QImage>
#include <QWidget>

#include "core/decode/caption_result.h"
#include "core/render/heatmap.h"
#include "ui/explorer/model_session.h"
#include "ui/explorer/panel_shown.h"
#include "ui/explorer/panel_title.h"

class QBoxLayout;
class QScrollArea;

namespace fovea::ui {

class AttentionView;
class CaptionStrip;
class LiveText;
class PanelNotes;
class ProbeLine;
class TakeAwayLine;

/// Its parts own their state: the header (PanelTitle), the probe (ProbeLine), the take-away and
/// its button (TakeAwayLine) and the notes under the words (PanelNotes); the panel shows the
/// caption and keeps the selected word, which they act on.
class ExplorerPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ExplorerPanel(QWidget* parent = nullptr);

  void loadModel(const QString& path);
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
  /// Removes a probe's or a take-away's result and shows the word's own α again (Escape, or a
  /// right-click on the image).
  void dismissNotes();

  AttentionView* view() const { return view_; }
  CaptionStrip* strip() const { return strip_; }
  ModelSession* session() const { return session_; }
  /// The header above the image: the model's name and summary, or what is loading; the warning
  /// when the image is unlike the model's training images.
  PanelTitle* title() const { return title_; }
  /// Under the words: the probe's or the take-away's line, or the image's reference captions.
  PanelNotes* notes() const { return notes_; }
  /// Probes the selected word where the user picks on the image.
  ProbeLine* probe() const { return probe_; }
  /// Takes away what the selected word looks at; its button sits beside the word's numbers.
  TakeAwayLine* takeAway() const { return take_away_; }
  const fovea::CaptionResult& caption() const { return shown_.caption; }
  bool hasCaption() const { return shown_.has_caption; }
  QString modelPath() const;

 Q_SIGNALS:
  void captionShown(int words);
  /// A probe or a take-away of the selected word began: the word (and a playing video) should stay.
  void wordHeld();
  void errorOccurred(const QString& message);
  /// A model did not load (the message names it); the panel goes on with the one it had.
  void modelFailed(const QString& message);
  void modelLoaded(const fovea::ui::ModelDescription& model);

 private:
  void request();
  void showReply(const CaptionReply& reply);
  /// Word `word`'s numbers beside the take-away button (none for no word).
  void showReadout(int word);

  ModelSession* session_;
  PanelTitle* title_;
  AttentionView* view_;
  QBoxLayout* body_;   ///< the image and details_: one under the other, or side by side (setCompact)
  QWidget* details_;   ///< the words, the word's numbers and the notes
  CaptionStrip* strip_;
  /// The strip in a space of kCaptionRows rows of chips, whatever the caption: a longer one
  /// scrolls there, so the image's size depends on the window only.
  QScrollArea* strip_space_;
  LiveText* readout_;  ///< the current word's numbers (changes 8 times a second while playing)
  /// Under the words, in a space that keeps its height: the probe's next words, what taking the
  /// word's attended cells away did, or the ground truth when the folder has a captions.json.
  PanelNotes* notes_;
  PanelShown shown_;
  ProbeLine* probe_ = nullptr;
  TakeAwayLine* take_away_ = nullptr;
  QString user_caption_;
  bool scored_ = false;
  quint64 latest_ = 0;
  double last_ms_ = 0;
};

}  // namespace fovea::ui
