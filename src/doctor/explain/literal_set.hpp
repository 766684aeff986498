// SPDX-License-Identifier: MIT
// The prefilter of `explain`: finds any of a set of literals in text, ignoring ASCII case. A line
// is run through a signature's regular expression only if the signature's literal occurs in it,
// so most of a log is looked at once, by candidate_lines().
//
// Two engines. An Aho-Corasick automaton compiled to a dense DFA over byte classes finds every
// occurrence (find_first, find_all: one line at a time). Over blocks of lines, candidate_lines()
// runs a sampled q-gram filter instead: it looks only at every S-th position, where S is the
// shortest literal's length less 4, plus one; so any occurrence of a literal of length L holds
// L - q + 1 >= S whole q-grams, one of which starts at a sampled position, wherever sampling
// started. Each literal offers, for each of the S residues of an offset modulo S, the
// least common-looking q-gram at such an offset, so one of them is always sampled. A sampled
// q-gram is hashed into a bit table that fits the L1 cache; a set bit looks up the literals
// offering that q-gram and compares them in place. A line with no literal thus costs one or two
// independent table lookups per S bytes, instead of a chain of dependent lookups, one per byte.
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
  // offsets without their LF, in order.
  void candidate_lines(std::string_view block,
                       std::vector<std::pair<std::size_t, std::size_t>>& out) const;

  // Appends to `out` the index of every literal occurring in `text` (an index once per
  // occurrence; the caller removes repeats).
  void find_all(std::string_view text, std::vector<std::uint32_t>& out) const;

  std::size_t state_count() const { return m_states; }
  std::size_t size() const { return m_literal_count; }
  // The q-gram filter's sampling stride, or 0 when candidate_lines() runs the DFA (a literal
  // holds an LF, or no literal is long enough to sample).
  std::size_t stride() const { return m_stride; }

private:
  // One literal offering a q-gram at `offset`.
  struct GramRef {
    std::uint32_t literal = 0; // index into m_folded
    std::uint32_t offset = 0;
  };
  // A distinct sampled q-gram (as gram_word() reads it, masked to its width) and the literals
  // offering it, m_refs[begin, end).
  struct GramSlot {
    std::uint64_t key = 0;
    std::uint32_t begin = 0;
    std::uint32_t end = 0; // begin == end: an empty slot
  };

  void build_filter(const std::vector<std::string>& literals);
  template<bool Short>
  void filter_candidate_lines(std::string_view block,
                              std::vector<std::pair<std::size_t, std::size_t>>& out) const;
  void dfa_candidate_lines(std::string_view block,
                           std::vector<std::pair<std::size_t, std::size_t>>& out) const;
  // Whether a literal offering q-gram `key` occurs around position `p` of `block`; sets `at` to
  // where it starts.
  bool verify(std::string_view block, std::size_t p, std::uint64_t key, std::size_t& at) const;

  // m_table[state * m_classes + class] = next state << 1 | (1 if that state ends a literal).
  std::vector<std::uint32_t> m_table;
  std::uint8_t m_class[256] = {};
  std::uint32_t m_classes = 1;
  std::size_t m_states = 1;
  std::size_t m_literal_count = 0;
  // Literals ending at each state (its own and its failure chain's): [m_out_begin[s], [s+1]).
  std::vector<std::uint32_t> m_out_begin;
  std::vector<std::uint32_t> m_out;

  // The q-gram filter (see the top of this file). Literals at least m_stride + 7 bytes long offer
  // 8-byte q-grams (rarer in text than 4-byte ones); shorter ones offer m_short-byte q-grams.
  std::size_t m_stride = 0;
  std::size_t m_short = 4;
  std::uint64_t m_short_mask = 0;
  bool m_any_short = false;
  std::vector<std::uint64_t> m_bits;       // 8-byte q-grams, indexed by filter_hash()
  std::vector<std::uint64_t> m_short_bits; // short q-grams
  std::vector<GramSlot> m_slots;           // open addressing, 2^m_slot_log2 of them
  unsigned m_slot_log2 = 0;
  std::vector<GramRef> m_refs;       // grouped by q-gram
  std::vector<std::string> m_folded; // the distinct literals, lower-cased
};

} // namespace doctor::explain
