#pragma once
/// The model fovea-studio last loaded, remembered between sessions (QSettings "view/model"), so
/// that the next session can open with it.
#include <QString>

namespace fovea::ui {

/// The model the last session had loaded, when that file is still there; else empty.
QString remembered_model();
void remember_model(const QString& path);

}  // namespace fovea::ui
