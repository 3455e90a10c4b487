#pragma once
/// The lines under a panel's words, in a space of fixed height so that nothing above them moves
/// when they change: a probe's or a take-away's result while one is shown (scrolling when
/// longer), otherwise the image's reference captions, otherwise a hint of what to try.
#include <QString>
#include <QStringList>
#include <QWidget>

class QLabel;
class QScrollArea;
class QStackedLayout;

namespace fovea::ui {

class PanelNotes : public QWidget {
  Q_OBJECT
 public:
  enum class Kind { None, Probe, TakeAway };
  /// Lines of text the space holds without scrolling.
  static constexpr int kLines = 4;  // a take-away and its control, each with the caption it leaves

  explicit PanelNotes(QWidget* parent = nullptr);

  /// Shows `rich_text` as the probe's or the take-away's line (one at a time).
  void setNote(Kind kind, const QString& rich_text);
  /// Removes the note when it is of `kind`.
  void clearNote(Kind kind);
  Kind noteKind() const { return kind_; }
  /// The note's text when one of `kind` is shown, else empty.
  QString note(Kind kind) const;
  /// The image's reference captions (rich text); empty: none.
  void setReferences(const QString& rich_text, const QString& tool_tip);
  /// The image's reference captions, with how the caption shown scores against them; none
  /// hides the line.
  void showReferences(const QStringList& references, double bleu4, double cider);
  QString references() const { return references_text_; }

 private:
  void showPage();

  QStackedLayout* pages_;
  QLabel* hint_;
  QLabel* references_;
  QScrollArea* note_scroll_;
  QLabel* note_;
  Kind kind_ = Kind::None;
  QString references_text_;
};

}  // namespace fovea::ui
