// SPDX-License-Identifier: MIT
#include <doctor/util/wildcard.hpp>

#include <vector>

namespace doctor::util {

namespace {

// Matches one character class starting at pattern[p] == '['. Returns the index after ']' and
// whether `c` matched, or npos if the class is unterminated (then '[' is a literal).
std::size_t match_class(std::string_view pattern, std::size_t p, char c, bool& matched) {
  std::size_t i = p + 1;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negate = true;
    ++i;
  }
  bool hit = false;
  bool first = true;
  while (i < pattern.size() && (pattern[i] != ']' || first)) {
    first = false;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      if (pattern[i] <= c && c <= pattern[i + 2]) {
        hit = true;
      }
      i += 3;
    } else {
      if (pattern[i] == c) {
        hit = true;
      }
      ++i;
    }
  }
  if (i >= pattern.size()) {
    return std::string_view::npos;
  }
  matched = hit != negate;
  return i + 1;
}

} // namespace

// Dynamic programming over (pattern position, name position) instead of backtracking, so a
// hostile pattern such as "*a*a*a*a*b" cannot take exponential time.
bool wildcard_match(std::string_view pattern, std::string_view name) {
  const std::size_t n = name.size();
  std::vector<char> cur(n + 1, 0);
  std::vector<char> next(n + 1, 0);
  cur[0] = 1;
  std::size_t p = 0;
  while (p < pattern.size()) {
    std::fill(next.begin(), next.end(), 0);
    const char pc = pattern[p];
    std::size_t step = 1;
    if (pc == '*') {
      char any = 0;
      for (std::size_t i = 0; i <= n; ++i) {
        any = static_cast<char>(any | cur[i]);
        next[i] = any;
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        if (!cur[i]) {
          continue;
        }
        bool ok = false;
        if (pc == '?') {
          ok = true;
        } else if (pc == '[') {
          bool matched = false;
          const std::size_t after = match_class(pattern, p, name[i], matched);
          if (after == std::string_view::npos) {
            ok = name[i] == '[';
          } else {
            ok = matched;
            step = after - p;
          }
        } else {
          ok = name[i] == pc;
        }
        if (ok) {
          next[i + 1] = 1;
        }
      }
      if (pc == '[') {
        bool dummy = false;
        const std::size_t after = match_class(pattern, p, '\0', dummy);
        step = after == std::string_view::npos ? 1 : after - p;
      }
    }
    cur.swap(next);
    p += step;
  }
  return cur[n] != 0;
}

bool has_wildcard(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

} // namespace doctor::util
