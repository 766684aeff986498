// SPDX-License-Identifier: MIT
// The prefilter of `explain`: finds any of a set of literals in text, ignoring ASCII case, in one
// pass (an Aho-Corasick automaton compiled to a dense DFA over byte classes). A line is run
// through a signature's regular expression only if the signature's literal occurs in it, so most
// of a log is looked at once, by this loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::explain {

class LiteralSet {
public:
  static constexpr std::size_t k_npos = static_cast<std::size_t>(-1);

  LiteralSet() = default;
  // Empty literals are ignored (they would match everywhere).
  explicit LiteralSet(const std::vector<std::string>& literals);

  // Returns the offset just past the first occurrence of any literal in `text`, or k_npos.
  std::size_t find_first(std::string_view text) const;

  // Appends to `out` the lines of `block` (which ends in LF) holding any literal, as [begin, end)
  // offsets without their LF, in order. Scans four parts of the block at once, interleaved, so
  // the table lookups of one part overlap those of the others.
  void candidate_lines(std::string_view block,
                       std::vector<std::pair<std::size_t, std::size_t>>& out) const;

  // Appends to `out` the index of every literal occurring in `text` (an index once per
  // occurrence; the caller removes repeats).
  void find_all(std::string_view text, std::vector<std::uint32_t>& out) const;

  std::size_t state_count() const { return m_states; }
  std::size_t size() const { return m_literal_count; }

private:
  // m_table[state * m_classes + class] = next state << 1 | (1 if that state ends a literal).
  std::vector<std::uint32_t> m_table;
  std::uint8_t m_class[256] = {};
  std::uint32_t m_classes = 1;
  std::size_t m_states = 1;
  std::size_t m_literal_count = 0;
  // Literals ending at each state (its own and its failure chain's): [m_out_begin[s], [s+1]).
  std::vector<std::uint32_t> m_out_begin;
  std::vector<std::uint32_t> m_out;
};

} // namespace doctor::explain
