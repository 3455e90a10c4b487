#pragma once
/// The caption settings' options (core/decode/caption_settings.h) on a `fovea` subcommand: each
/// command names the settings it takes, and the table gives their names, help and ranges.
#include <CLI/CLI.hpp>

#include <initializer_list>
#include <string>

#include "core/decode/caption_settings.h"

namespace fovea::cli {

/// Adds the options of the settings `keys` (caption_settings() keys), writing into `choices`.
void add_caption_options(CLI::App& app, CaptionChoices& choices, std::initializer_list<const char*> keys);

}  // namespace fovea::cli
