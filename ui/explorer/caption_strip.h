#pragma once
/// The caption as a strip of word chips: each shows the word, p(word) and β; the current word
/// is highlighted. A click selects a word; hovering only previews it while the pointer is on
/// its chip (wordHovered(-1) when the pointer leaves it). Chips wrap onto more lines. From the
/// keyboard each chip is a Tab stop (a ring marks the focused one; the arrows move it too), and
/// Enter or Space selects its word as a click does.
#include <QWidget>

#include <vector>

#include "core/decode/caption_result.h"

namespace fovea::ui {

class CaptionStrip : public QWidget {
  Q_OBJECT
 public:
  explicit CaptionStrip(QWidget* parent = nullptr);

  void setCaption(const fovea::CaptionResult& caption, bool scored = false);
  void clear();
  void setCurrent(int index);
  void setMessage(const QString& text);  ///< shown instead of words (e.g. "captioning…")

  int count() const { return int(words_.size()); }
  int current() const { return current_; }
  QString word(int i) const;
  /// The line under word i's chip: p (and β), or that the model does not know a typed word.
  QString wordDetail(int i) const;
  QRect wordRect(int i) const;  ///< for tests: where chip i is drawn
  int wordAt(const QPoint& pos) const;

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  /// The height `rows` rows of chips take.
  int heightOfRows(int rows) const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {120, 40}; }
  /// The chip under the mouse (drawn darker), -1 when none.
  int hoveredIndex() const { return hovered_; }
  /// The chip with the keyboard focus (ringed while the strip has the focus), -1 when none.
  int focusedChip() const { return focus_; }
  /// Moves the keyboard focus to chip `index` and scrolls it into view (the strip's keys call it).
  void focusChip(int index);

 Q_SIGNALS:
  void wordClicked(int index);
  /// The pointer moved onto chip `index`, or off every chip (-1): a preview, not a selection.
  void wordHovered(int index);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// The minimum height that shows every row of chips at the current width.
  void fitRows();
  std::vector<QRect> layoutChips(int width) const;

  std::vector<fovea::WordAttention> words_;
  std::vector<QRect> rects_;
  bool scored_ = false;
  bool beta_gated_ = true;
  bool finished_ = true;
  int current_ = -1;
  int hovered_ = -1;
  int focus_ = -1;
  QString message_;
};

}  // namespace fovea::ui
