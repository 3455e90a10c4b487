#pragma once
/// A panel's probe: what the model would say at the selected word looking at a region the user
/// picks on the image (core/decode/probe.h). While one is shown, the view shows the forced α and
/// the notes a line of the most probable words, until the word changes or it is dismissed.
#include <QObject>
#include <QString>

#include "core/decode/probe.h"
#include "ui/explorer/panel_shown.h"

namespace fovea::ui {

struct ProbeReply;

class ProbeLine : public QObject {
  Q_OBJECT
 public:
  /// Probes where the user picks on `parts.view`; the replies come from `parts.session`.
  ProbeLine(const PanelParts& parts, QObject* parent);

  /// Asks what the model would say at the current word (after the words before it; with no word
  /// selected, as the first word) looking at `region` (image pixels).
  void probe(const fovea::ProbeRegion& region);
  /// The probe's line (rich text); empty when no probe is shown.
  QString text() const;
  /// Removes the probe's line and its α (the view shows the word's own again).
  void clear();
  /// Says `error` on the probe's line when request `id` is this line's latest; false otherwise.
  bool showFailure(quint64 id, const QString& error);

 Q_SIGNALS:
  /// A probe was asked for: the selected word (and a playing video) should stay.
  void held();

 private:
  void show(const ProbeReply& reply);

  PanelParts parts_;
  quint64 latest_ = 0;
  QString prefix_;  ///< the words before the one probed
  fovea::ProbeRegion region_;
};

}  // namespace fovea::ui
