// SPDX-License-Identifier: MIT
// A small regular-expression engine whose running time is linear in the input, whatever the
// pattern: patterns compile to a Thompson NFA that a Pike VM simulates, with captures. There is no
// backtracking, so a hostile log line cannot make matching slow (std::regex and PCRE backtrack;
// RE2 and Hyperscan are linear but neither builds for the mingw-w64 Windows binary here).
//
// Dialect (a subset of RE2's), over bytes:
// - literal characters (UTF-8 sequences match as their bytes) and `\` escapes of punctuation;
//   `\d \w \s \D \W \S` (ASCII), `\t \n \r`, `\xHH`;
// - classes `[a-z0-9_.]`, `[^']` with escapes inside (ASCII ranges only); `.` is any byte but LF;
// - groups `( )`, `(?: )`, named `(?<name> )` and `(?P<name> )`; alternation `|`;
// - quantifiers `* + ? {n} {n,} {n,m}` (n, m <= 100), and lazy `*? +? ?? {..}?`;
// - assertions `^ $` (start and end of the text) and `\b \B` (ASCII word boundary);
// - a leading `(?i)` makes the whole pattern match ASCII letters in either case.
// Matching is leftmost-first, as in Perl and RE2: alternatives and quantifiers prefer the way
// written first. A compiled program is limited to k_max_program instructions.
#pragma once

#include <doctor/util/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace doctor {

// Where a match and its groups lie in the searched text; k_npos for a group that did not take part.
struct RegexMatch {
  static constexpr std::size_t k_npos = static_cast<std::size_t>(-1);
  std::size_t begin = k_npos;
  std::size_t end = k_npos;
  std::vector<std::pair<std::size_t, std::size_t>> groups; // index 0 is group 1

  // The text of group `index` (1-based) in `text`, or empty.
  std::string_view group(std::string_view text, std::size_t index) const;
};

class Regex {
public:
  static constexpr std::size_t k_max_program = 20000;

  // Parses and compiles `pattern`. The error names the offset and what is wrong
  // ("offset 7: unbalanced ')'").
  static Expected<Regex> compile(std::string_view pattern);

  // Finds the leftmost match in `text`. Fills `match` (if given) with the spans of the match and
  // its groups. Time is O(text size x program size); memory O(program size).
  bool search(std::string_view text, RegexMatch* match = nullptr) const;

  const std::string& pattern() const { return m_pattern; }

  // Capture groups in order of their opening parenthesis: the name, or "" for an unnamed group.
  const std::vector<std::string>& group_names() const { return m_group_names; }

  // Returns the 1-based index of the group called `name`, or 0.
  std::size_t group_index(std::string_view name) const;

  // The longest run of literal characters at the pattern's top level (outside any group, not
  // under a quantifier): every match contains it. Lower-cased when the pattern ignores case.
  const std::string& required_literal() const { return m_literal; }

  // The literal every match starts with (the top-level literal run at the pattern's start), or
  // empty. Searching jumps from one occurrence to the next. Lower-cased when ignoring case.
  const std::string& prefix() const { return m_prefix; }

  bool ignores_case() const { return m_ignore_case; }
  std::size_t program_size() const { return m_program.size(); }

  struct ByteSet {
    std::array<std::uint64_t, 4> bits{};
    bool has(unsigned char b) const { return ((bits[b >> 6] >> (b & 63)) & 1) != 0; }
    void add(unsigned char b) { bits[b >> 6] |= std::uint64_t{1} << (b & 63); }
  };

  enum class Op : std::uint8_t {
    byte_set,
    split,
    jump,
    save,
    assert_begin,
    assert_end,
    word_boundary,
    not_word_boundary,
    match
  };
  struct Inst {
    Op op = Op::match;
    std::uint32_t x = 0; // byte_set: set index; split/jump: target; save: slot
    std::uint32_t y = 0; // split: second (lower-priority) target
  };

private:
  std::string m_pattern;
  std::vector<Inst> m_program;
  std::vector<ByteSet> m_sets;
  std::vector<std::string> m_group_names;
  std::string m_literal;
  std::string m_prefix;
  bool m_ignore_case = false;

  friend class RegexCompiler;
};

} // namespace doctor
