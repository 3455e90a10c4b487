#pragma once
/// What the studio shows, kept from one session to the next (QSettings, "session/..."): the
/// image or video shown, the folder in the thumbnail strip, and whether two models are compared
/// (and the compared one). The view's other choices are main_window_settings.cpp's.
#include <QString>

namespace fovea::ui {

class MainWindow;

/// Remembers what `window` shows (on a worker thread: settings_writer.h).
void remember_session(const MainWindow& window);

/// Compares two models when the last session did, with the model it compared.
void restore_compare_mode(MainWindow& window);

/// Opens the image (or video) the last session showed, else its folder. A file or folder that is
/// gone is passed over without a word. Returns whether one opened (else the caller opens the
/// samples).
bool reopen_last_shown(MainWindow& window);

}  // namespace fovea::ui
