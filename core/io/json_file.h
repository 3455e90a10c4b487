#pragma once
/// Reading a JSON file that a user gives (a dataset, COCO captions or results), with errors that
/// name the file and say what is wrong with it: missing, a folder, unreadable, or where the JSON breaks.
#include <nlohmann/json.hpp>
#include <string>

namespace fovea {

/// The JSON in `path`. Throws std::runtime_error naming `path`.
nlohmann::json read_json_file(const std::string& path);

}  // namespace fovea
