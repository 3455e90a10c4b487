#pragma once
/// A panel's "Take it away" for the selected word, and its button: the image without the cells
/// holding most of the word's α, and without as many cells elsewhere (the control), each scored
/// and recaptioned (core/eval/removal.h). While one is shown, the view shows the first and the
/// notes a line of what both did to the word, until the word changes or it is put back.
#include <QObject>
#include <QString>

#include "ui/explorer/panel_shown.h"

class QPushButton;

namespace fovea::ui {

struct TakeAwayReply;

class TakeAwayLine : public QObject {
  Q_OBJECT
 public:
  /// Makes the button ("Take it away", then "Put it back"), for the panel to place.
  TakeAwayLine(const PanelParts& parts, QObject* parent);

  QPushButton* button() const { return button_; }
  /// Takes away what the selected word looks at (nothing when there is no such word).
  void takeAway();
  /// The take-away's line (rich text); empty when none is shown.
  QString text() const;
  /// Removes the take-away's line and its image (the view shows the word's own α again).
  void clear();
  /// Enables the button for a word that can be taken away, and names what it does now.
  void updateButton();
  /// Says `error` on the take-away's line when request `id` is this line's latest; false otherwise.
  bool showFailure(quint64 id, const QString& error);

 Q_SIGNALS:
  /// A take-away was asked for: the selected word (and a playing video) should stay.
  void held();

 private:
  void show(const TakeAwayReply& reply);

  PanelParts parts_;
  QPushButton* button_;
  quint64 latest_ = 0;
};

}  // namespace fovea::ui
