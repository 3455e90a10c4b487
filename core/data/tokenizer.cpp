#include "core/data/tokenizer.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace fovea {

namespace {

bool is_punctuation_token(const std::string& t) {
  static const std::array<const char*, 17> drop = {"''", "'", "``", "`", "-lrb-", "-rrb-", "-lcb-", "-rcb-", ".",
                                                   "?",  "!", ",",  ":", "-",     "--",    "...",   ";"};
  return std::find_if(drop.begin(), drop.end(), [&](const char* d) { return t == d; }) != drop.end();
}

bool is_separator(char c) {
  return std::string_view(",;:!?()[]{}\"").find(c) != std::string_view::npos;
}

/// Splits one whitespace-free chunk into PTB-style tokens.
void split_chunk(std::string w, std::vector<std::string>& out) {
  // Leading quotes/backquotes are separate tokens (dropped).
  while (!w.empty() && (w.front() == '\'' || w.front() == '`')) w.erase(w.begin());
  std::vector<std::string> tail;
  // Trailing periods and quotes.
  while (!w.empty() && (w.back() == '.' || w.back() == '\'')) {
    // Keep the period of an abbreviation with internal periods ("e.g.").
    if (w.back() == '.' && w.find('.') < w.size() - 1 && std::isalpha((unsigned char)w[w.size() - 2])) break;
    w.pop_back();
  }
  static const std::array<const char*, 6> clitics = {"'s", "'re", "'ve", "'ll", "'d", "'m"};
  if (w.size() > 3 && w.compare(w.size() - 3, 3, "n't") == 0) {
    tail.push_back("n't");
    w.resize(w.size() - 3);
  } else {
    for (const char* c : clitics) {
      const std::size_t n = std::char_traits<char>::length(c);
      if (w.size() > n && w.compare(w.size() - n, n, c) == 0) {
        tail.push_back(c);
        w.resize(w.size() - n);
        break;
      }
    }
  }
  if (!w.empty() && !is_punctuation_token(w)) out.push_back(w);
  for (auto& t : tail) out.push_back(t);
}

}  // namespace

std::vector<std::string> tokenize(const std::string& caption) {
  std::string text;
  text.reserve(caption.size() + 8);
  for (char c : caption) {
    const char l = char(std::tolower((unsigned char)c));
    if (is_separator(l)) {
      text += ' ';
    } else {
      text += l;
    }
  }
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace((unsigned char)text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace((unsigned char)text[j])) ++j;
    if (j > i) split_chunk(text.substr(i, j - i), tokens);
    i = j;
  }
  return tokens;
}

std::string join_tokens(const std::vector<std::string>& tokens) {
  std::string s;
  for (const auto& t : tokens) {
    if (!s.empty()) s += ' ';
    s += t;
  }
  return s;
}

}  // namespace fovea
