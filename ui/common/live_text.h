#pragma once
/// A line (or a few lines) of rich text that changes often: the word readout under the picture
/// (8 words a second while a caption plays), the training status (every step), the sample
/// captions. A QLabel re-lays out its whole window on every setText (QLabel::setText calls
/// updateGeometry, and each layout above passes it on), which cost the GUI thread milliseconds
/// per word; this widget has a size that does not depend on its text, so setText only repaints.
#include <QTextDocument>
#include <QWidget>

namespace fovea::ui {

class LiveText : public QWidget {
  Q_OBJECT
 public:
  /// `lines`: the height, in lines of the widget's font. Text that needs more is cut off, ending
  /// in an ellipsis; the tooltip holds all of it.
  explicit LiveText(int lines = 1, QWidget* parent = nullptr);

  /// Rich text (Qt's HTML subset) or plain text, as QLabel with Qt::AutoText.
  void setText(const QString& text);
  void clear() { setText(QString()); }
  QString text() const { return text_; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  int lines_;
  QString text_;
  QTextDocument document_;
};

}  // namespace fovea::ui
