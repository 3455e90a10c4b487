// The view of a take-away: the cells taken away look taken away (shaded), and a cell kept among
// them looks as it is, so the picture shows what the model was recaptioned without.
#include <QApplication>
#include <QImage>
#include <QtTest>

#include "ui/common/attention_view.h"

using namespace fovea::ui;

namespace {

/// The mean colour of `area` (inset by 3 pixels: away from any outline) in `shot`.
QColor mean_colour(const QImage& shot, const QRect& area) {
  const QRect inner = area.adjusted(3, 3, -3, -3);
  double r = 0, g = 0, b = 0;
  int n = 0;
  for (int y = inner.top(); y <= inner.bottom(); ++y) {
    for (int x = inner.left(); x <= inner.right(); ++x) {
      const QColor c = shot.pixelColor(x, y);
      r += c.red(), g += c.green(), b += c.blue(), ++n;
    }
  }
  return QColor(int(r / n), int(g / n), int(b / n));
}

}  // namespace

class RemovalViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void removedCellsAreShadedAndAKeptCellAmongThemIsNot() {
    AttentionView view;
    view.resize(208, 208);
    QImage picture(80, 80, QImage::Format_RGB888);
    picture.fill(QColor(60, 60, 60));  // the removal image: every cell the same grey
    view.setImage(picture);
    fovea::CaptionResult caption;
    caption.grid_h = caption.grid_w = 4;
    fovea::WordAttention word;
    word.word = "bag";
    word.alpha.assign(16, 1.0f / 16);
    caption.words = {word};
    view.setCaption(caption);
    view.setWordIndex(0);
    // Eight cells around cell 5 taken away, cell 5 kept; cell 15 is the control.
    view.setRemoval(picture, {0, 1, 2, 4, 6, 8, 9, 10}, {15});
    const QImage shot = view.grab().toImage();
    const QRect r = view.imageRect();
    const auto cell = [&](int i) {
      const int w = r.width() / 4, h = r.height() / 4;
      return QRect(r.left() + (i % 4) * w, r.top() + (i / 4) * h, w, h);
    };
    for (int removed : {0, 4, 10}) {
      const QColor c = mean_colour(shot, cell(removed));
      QVERIFY2(c.red() > c.green() + 25, qPrintable(QStringLiteral("removed cell %1 is not shaded: rgb(%2, %3, %4)")
                                                      .arg(removed).arg(c.red()).arg(c.green()).arg(c.blue())));
    }
    for (int kept : {5, 15}) {
      const QColor c = mean_colour(shot, cell(kept));
      QVERIFY2(std::abs(c.red() - 60) <= 4 && std::abs(c.green() - 60) <= 4,
               qPrintable(QStringLiteral("kept cell %1 does not show the picture: rgb(%2, %3, %4)")
                              .arg(kept).arg(c.red()).arg(c.green()).arg(c.blue())));
    }
    view.clearRemoval();
    const QColor back = mean_colour(view.grab().toImage(), cell(0));
    QVERIFY2(std::abs(back.red() - back.green()) <= 4, "the shading stays after the take-away is put back");
  }
};

QTEST_MAIN(RemovalViewTest)
#include "test_removal_view.moc"
