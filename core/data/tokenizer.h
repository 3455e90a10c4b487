#pragma once
/// Caption tokenisation after coco-caption's PTBTokenizer (docs/design.md §4.3): lowercase, clitics split
/// off ("dog's" -> "dog" "'s", "don't" -> "do" "n't"), punctuation tokens dropped.
#include <string>
#include <vector>

namespace fovea {

std::vector<std::string> tokenize(const std::string& caption);

/// Joins tokens with single spaces.
std::string join_tokens(const std::vector<std::string>& tokens);

}  // namespace fovea
