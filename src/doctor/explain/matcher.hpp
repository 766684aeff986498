// SPDX-License-Identifier: MIT
// Matches lines against the knowledge base's error signatures: the literal prefilter first, then
// the regular expressions of only the signatures whose literal occurs in the line.
#pragma once

#include <doctor/explain/literal_set.hpp>
#include <doctor/kb/signatures.hpp>

#include <cstddef>
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
  // Keeps a pointer to `signatures`, which must outlive the matcher.
  explicit SignatureMatcher(const std::vector<kb::Signature>& signatures);

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

private:
  const std::vector<kb::Signature>* m_signatures;
  LiteralSet m_literals;
  // Literal i belongs to pattern m_owner[i].second of signature m_owner[i].first.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_owner;
};

} // namespace doctor::explain
