// SPDX-License-Identifier: MIT
#include <doctor/explain/matcher.hpp>

#include <algorithm>

namespace doctor::explain {

namespace {

std::vector<std::string> literals_of(const std::vector<kb::Signature>& signatures,
                                     std::vector<std::pair<std::uint32_t, std::uint32_t>>& owner) {
  std::vector<std::string> out;
  for (std::size_t s = 0; s < signatures.size(); ++s) {
    for (std::size_t p = 0; p < signatures[s].patterns.size(); ++p) {
      out.push_back(signatures[s].patterns[p].required_literal());
      owner.emplace_back(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(p));
    }
  }
  return out;
}

} // namespace

SignatureMatcher::SignatureMatcher(const std::vector<kb::Signature>& signatures)
    : m_signatures(&signatures) {
  m_literals = LiteralSet(literals_of(signatures, m_owner));
}

void SignatureMatcher::match_line(std::string_view line,
                                  std::vector<LineMatch>& out,
                                  std::vector<std::uint32_t>& scratch) const {
  scratch.clear();
  m_literals.find_all(line, scratch);
  if (scratch.empty()) {
    return;
  }
  // Literal index order is signature order, then pattern order.
  std::sort(scratch.begin(), scratch.end());
  scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
  std::size_t last_signature = static_cast<std::size_t>(-1);
  for (std::uint32_t lit : scratch) {
    auto [s, p] = m_owner[lit];
    if (s == last_signature) {
      continue; // an earlier pattern of this signature matched
    }
    const kb::Signature& sig = (*m_signatures)[s];
    const Regex& re = sig.patterns[p];
    RegexMatch m;
    if (!re.search(line, &m)) {
      continue;
    }
    LineMatch lm;
    lm.signature = s;
    lm.pattern = p;
    lm.begin = m.begin;
    lm.end = m.end;
    for (std::size_t g = 0; g < re.group_names().size(); ++g) {
      const std::string& name = re.group_names()[g];
      if (name.empty() || m.groups[g].first == RegexMatch::k_npos) {
        continue;
      }
      lm.fields.emplace_back(name, std::string(m.group(line, g + 1)));
    }
    out.push_back(std::move(lm));
    last_signature = s;
  }
}

} // namespace doctor::explain
