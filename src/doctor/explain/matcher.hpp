// SPDX-License-Identifier: MIT
// Matches lines against the knowledge base's error signatures: the literal prefilter first, then
// the regular expressions of only the signatures whose literal occurs in the line. A line that
// holds one of the loader parser's triggers is also read by parse_load_failure(), and the first
// loader rule that fits what it found matches the whole line.
#pragma once

#include <doctor/explain/literal_set.hpp>
#include <doctor/explain/loader_message.hpp>
#include <doctor/kb/signatures.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doctor::explain {

// One signature matching one line.
struct LineMatch {
  std::size_t signature = 0; // index into the signature list
  std::size_t pattern = 0;   // the first of its patterns that matched
  std::size_t begin = 0;     // the match's span in the line
  std::size_t end = 0;
  std::vector<std::pair<std::string, std::string>> fields; // named groups that took part
};

class SignatureMatcher {
public:
  // Keeps a pointer to `signatures`, which must outlive the matcher. `cudnn_sets` (the knowledge
  // base's) tell cuDNN's libraries apart for the loader rules.
  explicit SignatureMatcher(const std::vector<kb::Signature>& signatures,
                            std::vector<kb::CudnnLibrarySet> cudnn_sets = {});

  // Returns the offset just past the first literal occurrence in `text` (any number of lines),
  // or LiteralSet::k_npos: text before that offset has no candidate line.
  std::size_t find_candidate(std::string_view text) const { return m_literals.find_first(text); }

  // Appends every signature matching `line` (one line, no LF), in signature order. `scratch` is
  // working memory the caller keeps between calls.
  void match_line(std::string_view line,
                  std::vector<LineMatch>& out,
                  std::vector<std::uint32_t>& scratch) const;

  const std::vector<kb::Signature>& signatures() const { return *m_signatures; }
  const LiteralSet& literals() const { return m_literals; }
  const std::vector<kb::CudnnLibrarySet>& cudnn_sets() const { return m_cudnn_sets; }

  // The loader rule (signature index) that fits `failure`, or nothing.
  std::optional<std::size_t> loader_rule(const LoadFailure& failure) const;

  // One load failure told on two lines: `first` names the library without saying what went
  // wrong, `next` (the line after it) is the system's message (load_error_continuation()). The
  // match of the two together, or nothing when they are not such a pair or no rule fits.
  std::optional<LineMatch> match_loader_continuation(std::string_view first,
                                                     std::string_view next) const;

private:
  struct CompiledRule {
    std::size_t signature = 0;
    std::vector<LibraryRole> roles;
    std::vector<LoadErrorKind> kinds;
  };
  void match_loader(std::string_view line, std::vector<LineMatch>& out) const;
  std::optional<LineMatch> loader_match(const LoadFailure& failure, std::size_t end) const;

  const std::vector<kb::Signature>* m_signatures;
  std::vector<kb::CudnnLibrarySet> m_cudnn_sets;
  std::vector<CompiledRule> m_rules;
  std::uint32_t m_first_trigger = 0; // literals from here on are the loader parser's triggers
  LiteralSet m_literals;
  // Literal i belongs to pattern m_owner[i].second of signature m_owner[i].first.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_owner;
};

} // namespace doctor::explain
