// fovea-studio: the desktop caption and attention explorer. Thin: parse, build the window, go.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSize>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <string>

#include "core/decode/caption_settings.h"
#include "core/runtime/process_startup.h"
#include "launch/local_processes.h"
#include "ui/common/attention_view.h"
#include "ui/explorer/caption_strip.h"
#include "ui/explorer/decoding_controls.h"
#include "ui/explorer/explorer_panel.h"
#include "ui/explorer/live_controls.h"
#include "ui/explorer/live_source.h"
#include "ui/explorer/main_window.h"
#include "ui/explorer/model_session.h"
#include "ui/explorer/probe_line.h"
#include "ui/explorer/remembered_model.h"
#include "ui/explorer/resource_paths.h"
#include "ui/explorer/session_memory.h"
#include "ui/explorer/take_away_line.h"
#include "ui/common/word_player.h"
#include "ui/training/training_run.h"
#include "ui/training/training_window.h"

namespace {

/// --screenshot: waits for the captions, shows word `word` (and with `probe`, what the model would
/// say there looking at that region; with `take_away`, the word's attended cells taken away),
/// saves the window, quits.
void schedule_screenshot(fovea::ui::MainWindow* w, const QString& file, int word, const QString& probe, bool take_away,
                         long long frame) {
  auto* timer = new QTimer(w);
  auto* clock = new QElapsedTimer;
  clock->start();
  QObject::connect(timer, &QTimer::timeout, w, [w, file, word, probe, take_away, timer, clock, frame] {
    // A panel is ready with its caption, or when it has no model to wait for (a load that failed).
    auto ready = [](fovea::ui::ExplorerPanel* p) {
      return (p->hasCaption() && !p->session()->isBusy()) || !p->session()->hasOrAwaitsModel();
    };
    const bool compare = !w->comparePanel()->isHidden();
    // The main panel will not caption: its model or its image failed (an error shown and nothing
    // in flight). An error from the compare panel alone does not stop the wait for the main one.
    const auto* primary = w->primaryPanel();
    const bool failed = !primary->session()->hasOrAwaitsModel() ||
                        (!w->errorText().isEmpty() && !primary->hasCaption() && !primary->session()->isBusy());
    const bool at_frame = frame < 0 || w->liveSource()->latest().index == frame;  // --frame of a video
    if (!failed && (!ready(w->primaryPanel()) || !at_frame || (compare && !ready(w->comparePanel()))) && clock->elapsed() < 120000) return;
    timer->stop();
    w->player()->pause();
    // What cannot be shown is refused, as the CLI refuses it, not shown as something else.
    const int words = w->player()->count();
    if (words > 0 && word >= words) {
      std::fprintf(stderr, "fovea-studio: --word %d: the caption has %d words\n", word + 1, words);
      QApplication::exit(2);
      return;
    }
    if (words > 0) w->player()->setCurrent(word);
    if (!probe.isEmpty()) {
      const QImage image = w->primaryPanel()->view()->image();
      try {
        const auto region = fovea::parse_probe_region(probe.toStdString());
        (void)fovea::forced_alpha(region, image.width(), image.height(), 1, 1, fovea::AttentionKind::Soft);  // misses the image?
        w->primaryPanel()->probe()->probe(region);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "fovea-studio: --probe: %s\n", e.what());
        QApplication::exit(2);
        return;
      }
    }
    if (take_away) w->primaryPanel()->takeAway()->takeAway();
    auto* settle = new QElapsedTimer;
    settle->start();
    auto* wait = new QTimer(w);
    QObject::connect(wait, &QTimer::timeout, w, [w, file, probe, take_away, wait, settle] {
      const auto* view = w->primaryPanel()->view();
      const bool pending = (!probe.isEmpty() && !view->hasProbe()) || (take_away && !view->hasRemoval());
      if (pending && settle->elapsed() < 60000) return;
      wait->stop();
      QTimer::singleShot(150, w, [w, file] {
        const bool ok = w->grab().save(file, "PNG");
        const int words = w->player()->count();
        const QString shown = words > 0 ? QStringLiteral("word %1 of %2").arg(w->player()->current() + 1).arg(words)
                                        : QStringLiteral("no caption");
        std::fprintf(stderr, "%s %s (%s)\n", ok ? "wrote" : "could not write", qPrintable(file), qPrintable(shown));
        // The picture is written either way; an error on it fails the command, so scripts notice.
        const bool error = !w->errorText().isEmpty();
        if (error) std::fprintf(stderr, "shown error: %s\n", qPrintable(w->errorText()));
        QApplication::exit(ok && !error ? 0 : 1);
      });
    });
    wait->start(50);
  });
  timer->start(100);
}

/// --run DIR --screenshot FILE: renders the training window with that run's dashboards.
void schedule_training_screenshot(fovea::ui::TrainingWindow* w, const QString& file) {
  // Charts redraw on a ~100 ms timer and the gallery loads its images: give them a moment.
  QTimer::singleShot(800, w, [w, file] {
    const bool ok = w->grab().save(file, "PNG");
    std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "could not write", qPrintable(file));
    QApplication::exit(ok ? 0 : 1);
  });
}

/// Without a display (no DISPLAY or WAYLAND_DISPLAY, no QT_QPA_PLATFORM), Qt aborts while it
/// starts. What needs no screen (--help, --version, --screenshot) gets the offscreen platform;
/// anything else is told why it cannot start. Returns false when the program should end.
bool choose_platform(int argc, char** argv) {
  const auto set = [](const char* name) { return !qEnvironmentVariableIsEmpty(name); };
  if (set("DISPLAY") || set("WAYLAND_DISPLAY") || set("QT_QPA_PLATFORM")) return true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help" || a == "--help-all" || a == "-v" || a == "--version" || a == "--screenshot" ||
        a.rfind("--screenshot=", 0) == 0) {
      qputenv("QT_QPA_PLATFORM", "offscreen");
      return true;
    }
  }
  std::fprintf(stderr,
               "fovea-studio: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set): start it "
               "in a desktop session, or under xvfb-run; --screenshot FILE renders without one, and the fovea "
               "command needs none\n");
  return false;
}

/// fovea-studio's command line: its options, and the values they were given.
struct StudioOptions {
  QCommandLineParser cli;
  const QCommandLineOption model{{"m", "model"}, QStringLiteral("Model file (default: the shipped soft model)"), QStringLiteral("file")};
  const QCommandLineOption compare{QStringLiteral("compare"), QStringLiteral("Second model, shown side by side"), QStringLiteral("file")};
  const QCommandLineOption caption{QStringLiteral("caption"), QStringLiteral("Score this caption instead of generating one"), QStringLiteral("text")};
  const QCommandLineOption beam{{"k", "beam"}, QString::fromUtf8(fovea::caption_setting("beam").help), QStringLiteral("k"), QStringLiteral("3")};
  const QCommandLineOption word{QStringLiteral("word"),
                                QStringLiteral("With --screenshot: the word to show (1 = first, as fovea take-away counts)"),
                                QStringLiteral("n"), QStringLiteral("3")};
  const QCommandLineOption probe{QStringLiteral("probe"),
                                 QStringLiteral("With --screenshot: ask what the model would say at that word looking at "
                                                "x0,y0,x1,y1 (or x,y) in the image's pixels"),
                                 QStringLiteral("region")};
  const QCommandLineOption take_away{QStringLiteral("take-away"),
                                     QStringLiteral("With --screenshot: take away what the model looks at for that word")};
  const QCommandLineOption shot{QStringLiteral("screenshot"), QStringLiteral("Render the window to this PNG once captioned, then exit"), QStringLiteral("file")};
  const QCommandLineOption webcam{QStringLiteral("webcam"), QStringLiteral("Start with live captions from the first camera (/dev/video*)")};
  const QCommandLineOption frame{QStringLiteral("frame"), QStringLiteral("With a video: pause at this frame (0 = first); with --screenshot, render it"),
                                 QStringLiteral("n")};
  const QCommandLineOption run{QStringLiteral("run"), QStringLiteral("Open this training run's dashboards (a run folder; repeat to overlay runs)"), QStringLiteral("dir")};
  const QCommandLineOption runs{QStringLiteral("runs"), QStringLiteral("Folder of training runs for the run list (default: ./runs)"), QStringLiteral("dir")};
  const QCommandLineOption train{QStringLiteral("train"), QStringLiteral("Open the training window")};
  const QCommandLineOption new_run{QStringLiteral("new-run"), QStringLiteral("Open the training window's New run dialog")};
  const QCommandLineOption size{QStringLiteral("size"), QStringLiteral("Window size, e.g. 1024x700 (the windows' default otherwise)"), QStringLiteral("WxH")};

  int beam_width = 3;
  int word_index = 2;  ///< --word, counted from 0
  long long frame_index = -1;  ///< --frame, -1 without it
  QSize window_size;  ///< --size, invalid without it

  StudioOptions() {
    cli.setApplicationDescription(QStringLiteral("Fovea Studio: captions and where the model looks, word by word"));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("image"), QStringLiteral("Image file or folder to open (default: the sample scenes)"));
    cli.addOptions({model, compare, caption, beam, word, probe, take_away, shot, webcam, frame, run, runs, train, new_run, size});
  }

  /// Reads the option values, checked before anything loads: returns the exit status of a bad
  /// one (it is said on stderr), 0 when all are good.
  int read_values() {
    auto refuse = [](const char* option, const std::string& why) {
      std::fprintf(stderr, "fovea-studio: --%s: %s\n", option, why.c_str());
      return 2;
    };
    bool ok = true;
    beam_width = cli.value(beam).toInt(&ok);
    const auto& beam_range = fovea::caption_setting("beam");
    if (!ok || beam_width < beam_range.min || beam_width > beam_range.max) {
      return refuse("beam", "'" + cli.value(beam).toStdString() + "' is not a beam width from " +
                                std::to_string(beam_range.min) + " to " + std::to_string(beam_range.max));
    }
    word_index = cli.value(word).toInt(&ok) - 1;
    if (!ok || word_index < 0) return refuse("word", "'" + cli.value(word).toStdString() + "' is not a word position (1 = first)");
    if (cli.isSet(probe)) {
      try {
        (void)fovea::parse_probe_region(cli.value(probe).toStdString());
      } catch (const std::exception& e) {
        return refuse("probe", e.what());
      }
    }
    frame_index = cli.isSet(frame) ? cli.value(frame).toLongLong() : -1;
    if (cli.isSet(size)) {
      const auto parts = cli.value(size).split(QLatin1Char('x'));
      window_size = parts.size() == 2 ? QSize(parts[0].toInt(), parts[1].toInt()) : QSize();
      if (window_size.width() < 200 || window_size.height() < 200) {
        std::fprintf(stderr, "fovea-studio: --size: '%s' is not WIDTHxHEIGHT of at least 200x200\n", qPrintable(cli.value(size)));
        return 2;
      }
    }
    return 0;
  }

  bool wantsTrainingWindow() const { return cli.isSet(run) || cli.isSet(runs) || cli.isSet(train) || cli.isSet(new_run); }
};

/// The main window's first view: the model (the one asked for, else the one the last session
/// used, else the shipped one), a compared model, the beam, and the image or folder to open.
void open_first_view(fovea::ui::MainWindow& window, const StudioOptions& o) {
  const auto& cli = o.cli;
  // The view and the model as the last session left them; a screenshot renders with the defaults.
  const bool remembered = !cli.isSet(o.shot);
  if (remembered) window.restoreView();
  QString model_path = cli.isSet(o.model) ? cli.value(o.model) : fovea::ui::default_model_path();
  if (!cli.isSet(o.model) && qEnvironmentVariableIsEmpty("FOVEA_MODEL") && remembered && !fovea::ui::remembered_model().isEmpty())
    model_path = fovea::ui::remembered_model();
  if (model_path.isEmpty())
    window.primaryPanel()->strip()->setMessage(QObject::tr("No model found: use File \u25B8 Load Model"));
  else
    window.loadModel(model_path);
  if (cli.isSet(o.compare)) window.loadCompareModel(cli.value(o.compare));
  else if (remembered) fovea::ui::restore_compare_mode(window);
  if (cli.isSet(o.beam) || !remembered) window.decoding()->setBeam(o.beam_width);
  if (cli.isSet(o.caption)) window.setUserCaption(cli.value(o.caption));

  const QStringList args = cli.positionalArguments();
  if (!args.isEmpty()) {
    if (QFileInfo(args.first()).isDir()) window.openFolder(args.first());
    else window.openImage(args.first());
  } else if (remembered && fovea::ui::reopen_last_shown(window)) {
    // the image or folder the last session showed
  } else if (!fovea::ui::samples_dir().isEmpty()) {
    window.openFolder(fovea::ui::samples_dir());  // first launch: the scenes the model knows
  }
}

/// --run, --runs, --train, --new-run: shows the training window with those runs (and the New run
/// dialog), and schedules its screenshot. Returns the exit status when a run cannot be opened for
/// a screenshot, -1 otherwise.
int show_training_window(fovea::ui::MainWindow& window, const StudioOptions& o) {
  const auto& cli = o.cli;
  auto* training = window.trainingWindow();
  if (cli.isSet(o.runs)) training->setRunsRoot(cli.value(o.runs));
  else if (cli.isSet(o.run)) training->setRunsRoot(QFileInfo(cli.value(o.run)).absolutePath());
  for (const auto& dir : cli.values(o.run)) {
    if (training->openRun(dir)) continue;
    std::fprintf(stderr, "%s\n", qPrintable(training->statusText()));
    if (cli.isSet(o.shot)) return 1;
  }
  if (o.window_size.isValid()) training->resize(o.window_size);
  window.showTrainingWindow();
  if (cli.isSet(o.new_run)) {
    if (cli.isSet(o.shot)) {
      // Render the dialog itself once it is up.
      QTimer::singleShot(500, training, [file = cli.value(o.shot)] {
        auto* dialog = QApplication::activeModalWidget();
        const bool ok = dialog && dialog->grab().save(file, "PNG");
        std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "could not write", qPrintable(file));
        QApplication::exit(ok ? 0 : 1);
      });
    }
    QTimer::singleShot(0, training, [training] { training->newRun(); });
  } else if (cli.isSet(o.shot)) {
    schedule_training_screenshot(training, cli.value(o.shot));
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  fovea::prepare_process(argc, argv);
  if (!choose_platform(argc, argv)) return 1;
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Fovea"));
  QApplication::setApplicationName(QStringLiteral("fovea-studio"));
  QApplication::setApplicationVersion(QStringLiteral(FOVEA_VERSION));
  // A training run of several processes: this one and copies of the fovea tool beside this program.
  const std::string tool = (QApplication::applicationDirPath() + QStringLiteral("/fovea")).toStdString();
  fovea::ui::TrainingRun::setDefaultLauncher([tool] { return std::make_unique<fovea::FoveaToolLauncher>(tool); });

  StudioOptions o;
  o.cli.process(app);
  if (const int refused = o.read_values(); refused != 0) return refused;

  fovea::ui::MainWindow window;
  open_first_view(window, o);
  if (o.window_size.isValid()) window.resize(o.window_size);
  window.show();
  if (o.cli.isSet(o.webcam)) window.live()->startWebcam();
  if (o.frame_index >= 0) {
    window.liveSource()->pause();
    window.liveSource()->seek(o.frame_index);
  }
  if (o.wantsTrainingWindow()) {
    if (const int status = show_training_window(window, o); status >= 0) return status;
    if (o.cli.isSet(o.new_run) || o.cli.isSet(o.shot)) return app.exec();
  }
  if (o.cli.isSet(o.shot))
    schedule_screenshot(&window, o.cli.value(o.shot), o.word_index, o.cli.value(o.probe), o.cli.isSet(o.take_away), o.frame_index);
  return app.exec();
}
