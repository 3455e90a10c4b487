#pragma once
/// The main window on a short screen (1920x1080 at 200% is 960x540): below a height the
/// window's parts make room for the image, which otherwise shrank to a stamp while the caption
/// field and the thumbnail strip scrolled out of view. The words go beside the image
/// (ExplorerPanel::setCompact), the thumbnails shrink and lose their names, and the main toolbar
/// (whose actions are all in the menus) hides. Follows the window's resizes.
#include <QObject>

namespace fovea::ui {

class MainWindow;

class CompactLayout : public QObject {
  Q_OBJECT
 public:
  /// Below this height of the window (client area) the layout is compact.
  static constexpr int kBelowHeight = 620;

  explicit CompactLayout(MainWindow* window);
  bool isCompact() const { return compact_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void apply(bool compact);

  MainWindow* window_;
  bool compact_ = false;
};

}  // namespace fovea::ui
