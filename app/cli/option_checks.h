#pragma once
/// Checks for the `fovea` subcommands' whole-number options, worded as `fovea train`'s settings
/// word theirs. CLI11 2.1 reads "-1" into an unsigned option as 2^64 - 1 (a count of -1 then ran
/// for ever), and its PositiveNumber and NonNegativeNumber print their bounds as 300-digit doubles.
#include <CLI/CLI.hpp>

namespace fovea::cli {

/// A whole number of at least `minimum`: "must be >= 1, got -5", "expected a whole number, got 'x'".
CLI::Validator at_least(long long minimum);

}  // namespace fovea::cli
