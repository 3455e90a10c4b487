// What a user reads when something fails: never a C++ backtrace or a library's source path, and
// never a dialog taller than the screen. The error text is what LibTorch's c10::Error::what()
// gives for the sampling of a hard-attention run whose α went NaN.
#include <QApplication>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/common/user_message.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/main_window.h"
#include "ui/training/training_run.h"
#include "ui/training/training_window.h"
#include "tests/ui/shown_widgets.h"

using namespace fovea::ui;
using namespace fovea::test_ui;

namespace {

QString c10_error() {
  QString text = QStringLiteral(
      "step 2: probability tensor contains either `inf`, `nan` or element < 0\n"
      "Exception raised from multinomial at ./aten/src/ATen/native/Distributions.cpp:596 (most recent call first):\n");
  for (int i = 0; i < 40; ++i) {
    text += QStringLiteral("frame #%1: at::native::multinomial(at::Tensor const&, long, bool, std::optional<at::Generator>) + 0x%2 "
                           "(0x7f1e4b3c2c89 in /usr/lib/x86_64-linux-gnu/libtorch_cpu.so.2.1)\n")
                .arg(i)
                .arg(100 + i);
  }
  return text;
}

/// What the user sees of `text`: no frames, no library sources, the first line kept.
void verifyClean(const QString& seen) {
  QVERIFY2(!seen.contains(QLatin1String("frame #")), qPrintable(seen));
  QVERIFY2(!seen.contains(QLatin1String("Exception raised from")), qPrintable(seen));
  QVERIFY2(!seen.contains(QLatin1String(".cpp")) && !seen.contains(QLatin1String(".so")), qPrintable(seen));
  QVERIFY2(!seen.contains(QLatin1String("0x7f")), qPrintable(seen));
}

}  // namespace

class MessagesTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aLibTorchErrorBecomesItsFirstLine() {
    const UserMessage m = user_message(c10_error());
    QCOMPARE(m.summary, QStringLiteral("step 2: probability tensor contains either `inf`, `nan` or element < 0"));
    QVERIFY(m.details.isEmpty());
    verifyClean(user_text(c10_error()));
    // Flattened onto one line (as a log may hold it), the trace still goes.
    verifyClean(user_text(QString(c10_error()).replace('\n', ' ')));
    QVERIFY(user_text(QString(c10_error()).replace('\n', ' ')).startsWith("step 2: probability tensor"));
  }

  void theUsersOwnFilesStayNamed() {
    const QString text = QStringLiteral("/home/ann/runs/soft-1/last.ckpt: not a Fovea model file");
    QCOMPARE(user_text(text), text);
    QCOMPARE(user_text(QStringLiteral("/data/scenes/img 4.png: cannot read the image")),
             QStringLiteral("/data/scenes/img 4.png: cannot read the image"));
  }

  void aLongMessageFoldsItsDetailsAndTheDialogFitsTheScreen() {
    QString text = QStringLiteral("The run stopped.\n");
    for (int i = 0; i < 300; ++i) text += QStringLiteral("line %1 of what the trainer said about it\n").arg(i);
    const UserMessage m = user_message(text);
    QVERIFY(m.summary.count('\n') < 3);
    QVERIFY(m.details.contains("line 299"));
    QMessageBox* box = make_message_box(nullptr, QMessageBox::Warning, "Training failed", text);
    QCOMPARE(box->text(), m.summary);
    QVERIFY(box->detailedText().contains("line 299"));
    box->show();
    QVERIFY(QTest::qWaitForWindowExposed(box));
    const QRect screen = box->screen()->availableGeometry();
    QVERIFY2(box->frameGeometry().height() <= screen.height() && box->frameGeometry().width() <= screen.width(),
             qPrintable(QStringLiteral("%1x%2").arg(box->frameGeometry().width()).arg(box->frameGeometry().height())));
    box->close();
  }

  void aFailedRunShowsNoFramesInTheDialogTheStatusOrTheLog() {
    QTemporaryDir runs;
    TrainingWindow window;
    window.setRunsRoot(runs.path());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    Q_EMIT window.training()->failed(runs.filePath("hard-1"), c10_error());
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = shownTopLevel<QMessageBox>()) != nullptr);
    verifyClean(box->text() + box->detailedText());
    QVERIFY2(box->text().contains("probability tensor contains"), qPrintable(box->text()));
    QVERIFY(box->frameGeometry().height() <= box->screen()->availableGeometry().height());
    verifyClean(window.statusText());
    verifyClean(window.logText());
    QVERIFY(window.logText().contains("probability tensor contains"));
    box->close();
  }

  void theExplorersErrorBarShowsNoFrames() {
    MainWindow window;
    window.show();
    Q_EMIT window.primaryPanel()->errorOccurred(c10_error());
    verifyClean(window.errorText());
    QVERIFY(window.errorText().contains("probability tensor contains"));
  }
};

QTEST_MAIN(MessagesTest)
#include "test_messages.moc"
