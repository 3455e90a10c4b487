#pragma once
/// Where the shipped models and sample images are: beside the executable (build tree or an
/// installed share/fovea), or the source tree this build came from.
#include <QString>

namespace fovea::ui {

/// $FOVEA_MODEL, else models/fashion-soft.ckpt from the first data folder that has it; "" if none.
QString default_model_path();
/// The other shipped model (hard attention), for side-by-side comparison; "" if none.
QString default_compare_model_path();
/// resources/samples from the first data folder that has it; "" if none.
QString samples_dir();

}  // namespace fovea::ui
