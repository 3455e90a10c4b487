#pragma once
/// Where the shipped models and sample images are (core/runtime/data_paths.h): an installed
/// share/fovea, or the repository of a build tree.
#include <QList>
#include <QString>

namespace fovea::ui {

/// $FOVEA_MODEL, else the shipped soft model; "" if none.
QString default_model_path();
/// The other shipped model (hard attention), for side-by-side comparison; "" if none.
QString default_compare_model_path();
/// The shipped models present, by name (core/runtime/data_paths.h): what the File menu offers.
struct NamedModel {
  QString name, path;
};
QList<NamedModel> shipped_models();
/// The sample scenes' folder; "" if none.
QString samples_dir();

}  // namespace fovea::ui
