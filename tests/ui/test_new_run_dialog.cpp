// The New run dialog: the folder it names follows the attention
// chosen, Quick test sets every field it names, an absurd learning rate is refused with the
// field's name (not a CLI flag), and the Processes field says its limit.
#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "core/train/train_config.h"
#include "ui/training/new_run_dialog.h"

using namespace fovea::ui;

class NewRunDialogTest : public QObject {
  Q_OBJECT
  QTemporaryDir runs_;

  static QPushButton* button(const QWidget* w, const QString& text) {
    for (auto* b : w->findChildren<QPushButton*>())
      if (b->text() == text) return b;
    return nullptr;
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void theSuggestedFolderFollowsTheAttentionUntilTheUserNamesIt() {
    NewRunDialog d(runs_.path());
    d.setValue("attention", "soft");
    QVERIFY2(d.value("out").toString().contains("/soft-"), qPrintable(d.value("out").toString()));
    d.setValue("attention", "hard");
    QVERIFY2(d.value("out").toString().contains("/hard-"), qPrintable(d.value("out").toString()));
    d.setValue("out", runs_.filePath("mine"));
    d.setValue("attention", "soft");
    QCOMPARE(d.value("out").toString(), runs_.filePath("mine"));
  }

  void quickTestSetsEveryFieldItNames() {
    NewRunDialog d(runs_.path());
    d.setValue("lr", "1e20");  // left from the last run
    d.setValue("attention", "hard");
    QTest::mouseClick(button(&d, "Quick test"), Qt::LeftButton);
    const auto c = d.config();
    QCOMPARE(c.lr, fovea::recommended_train_config().lr);
    QVERIFY(c.model.attention == fovea::AttentionKind::Hard);  // the model stays
    QCOMPARE(c.max_steps, 300);
  }

  void anAbsurdLearningRateIsRefusedNamingTheField() {
    NewRunDialog d(runs_.path());
    d.setValue("lr", "1e20");
    d.accept();
    QVERIFY(d.result() != QDialog::Accepted);
    const QString why = d.errorText();
    QVERIFY2(why.contains("1e+20") || why.contains("1e20"), qPrintable(why));
    QVERIFY2(why.contains("“Lr”"), qPrintable(why));
    QVERIFY2(!why.contains("--"), qPrintable(why));
  }

  void theProcessesFieldSaysItsLimit() {
    NewRunDialog d(runs_.path());
    auto* field = d.findChild<QSpinBox*>("processes");
    QVERIFY(field != nullptr);
    const int cores = std::max(1, QThread::idealThreadCount());
    QCOMPARE(field->maximum(), cores);
    bool said = false;
    for (auto* label : d.findChildren<QLabel*>()) said |= label->text().contains(QStringLiteral("at most %1 here").arg(cores));
    QVERIFY(said);
  }
};

QTEST_MAIN(NewRunDialogTest)
#include "test_new_run_dialog.moc"
