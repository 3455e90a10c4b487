#pragma once
/// Reading a JSON file that a user gives (a dataset, COCO captions or results), with errors that
/// name the file and say what is wrong with it: missing, a folder, unreadable, or where the JSON breaks.
#include <nlohmann/json.hpp>
#include <string>

namespace fovea {

/// The JSON in `path`. Throws std::runtime_error naming `path`.
nlohmann::json read_json_file(const std::string& path);

/// What a JSON library error says, in plain words: its code ("[json.exception.type_error.302] ")
/// left out, e.g. "type must be number, but is string", "key 'width' not found".
std::string json_error_text(const nlohmann::json::exception& e);

}  // namespace fovea
