#pragma once
/// Where Fovea's shipped data is (the trained models with their cards, and the sample scenes),
/// found from the running program's own location, never from a path compiled in:
///   installed:  PREFIX/bin/fovea      -> PREFIX/share/fovea/{models,samples}
///   build tree: REPO/build/app/fovea  -> REPO/{models,resources/samples}
/// (and from the roots add_data_root() gave, first),
/// then the current folder as the repository. Torch-free.
#include <string>
#include <vector>

namespace fovea {

/// The folder of the running executable (from /proc/self/exe); empty when unknown.
std::string executable_dir();

/// Also looks in `root` (before the executable's places): a folder holding share/fovea/ (an
/// installation prefix) or models/ and resources/samples/ (the repository). For code that is not
/// the running program, e.g. the Python module, whose program is python3.
void add_data_root(const std::string& root);

/// The shipped model `file_name` (e.g. "fashion-soft.ckpt"), or empty when none is found.
std::string shipped_model_path(const std::string& file_name);

/// A shipped model as a user picks it: by what it is, not by its file name.
struct ShippedModel {
  std::string name;  ///< e.g. "Supervised soft attention"
  std::string path;
};

/// The shipped models that are present, in the order they are offered (docs/models.md): the
/// supervised soft and hard models, then the soft model trained by the paper's objective alone.
std::vector<ShippedModel> shipped_models();

/// The default model: $FOVEA_MODEL, else the shipped soft model, else "models/fashion-soft.ckpt"
/// (which then names what is missing when it is opened).
std::string default_model_path();

/// The encoder the shipped recipe starts from: the shipped "fashion-encoder.pt", else
/// "models/fashion-encoder.pt" (which then names what is missing when it is opened).
std::string default_encoder_path();

/// The folder of the sample scenes (PNG files and their captions.json), or empty.
std::string samples_dir();

}  // namespace fovea
