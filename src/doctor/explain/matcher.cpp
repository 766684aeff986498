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

SignatureMatcher::SignatureMatcher(const std::vector<kb::Signature>& signatures,
                                   std::vector<kb::CudnnLibrarySet> cudnn_sets)
    : m_signatures(&signatures)
    , m_cudnn_sets(std::move(cudnn_sets)) {
  std::vector<std::string> literals = literals_of(signatures, m_owner);
  for (std::size_t s = 0; s < signatures.size(); ++s) {
    if (!signatures[s].loader) {
      continue;
    }
    CompiledRule rule;
    rule.signature = s;
    for (const std::string& r : signatures[s].loader->roles) {
      rule.roles.push_back(library_role(r).value_or(LibraryRole::unknown));
    }
    for (const std::string& k : signatures[s].loader->kinds) {
      rule.kinds.push_back(load_error_kind(k).value_or(LoadErrorKind::unknown));
    }
    m_rules.push_back(std::move(rule));
  }
  m_first_trigger = static_cast<std::uint32_t>(literals.size());
  if (!m_rules.empty()) {
    for (const std::string& t : load_failure_triggers()) {
      literals.push_back(t);
    }
  }
  m_literals = LiteralSet(literals);
}

std::optional<std::size_t> SignatureMatcher::loader_rule(const LoadFailure& failure) const {
  const bool by_module = failure.library.empty();
  const std::string& subject = !failure.missing.empty() ? failure.missing : failure.library;
  const LibraryIdentity id = by_module ? LibraryIdentity{LibraryRole::python_extension, 0, {}}
                                       : classify_library(subject, m_cudnn_sets);
  const std::string& failed = by_module ? failure.module : failure.library;
  for (const CompiledRule& rule : m_rules) {
    const kb::Signature& sig = (*m_signatures)[rule.signature];
    const kb::LoaderRule& r = *sig.loader;
    if ((sig.platform == "windows" && !failure.windows)
        || (sig.platform == "linux" && failure.windows)) {
      continue;
    }
    if (!rule.roles.empty()
        && std::find(rule.roles.begin(), rule.roles.end(), id.role) == rule.roles.end()) {
      continue;
    }
    if (!rule.kinds.empty()
        && std::find(rule.kinds.begin(), rule.kinds.end(), failure.kind) == rule.kinds.end()) {
      continue;
    }
    if (r.cudnn_major != 0 && r.cudnn_major != id.cudnn_major) {
      continue;
    }
    if (!r.names.empty() && std::none_of(r.names.begin(), r.names.end(), [&](const std::string& n) {
          return failed.compare(0, n.size(), n) == 0;
        })) {
      continue;
    }
    return rule.signature;
  }
  return std::nullopt;
}

void SignatureMatcher::match_loader(std::string_view line, std::vector<LineMatch>& out) const {
  const auto failure = parse_load_failure(line);
  if (!failure) {
    return;
  }
  if (auto lm = loader_match(*failure, line.size())) {
    out.push_back(std::move(*lm));
  }
}

std::optional<LineMatch> SignatureMatcher::match_loader_continuation(std::string_view first,
                                                                     std::string_view next) const {
  if (m_rules.empty()) {
    return std::nullopt;
  }
  auto failure = parse_load_failure(first);
  if (!failure || failure->kind != LoadErrorKind::unknown || failure->library.empty()) {
    return std::nullopt;
  }
  const auto kind = load_error_continuation(next);
  if (!kind) {
    return std::nullopt;
  }
  failure->kind = *kind;
  return loader_match(*failure, next.size());
}

std::optional<LineMatch> SignatureMatcher::loader_match(const LoadFailure& failure,
                                                        std::size_t end) const {
  const auto rule = loader_rule(failure);
  if (!rule) {
    return std::nullopt;
  }
  LineMatch lm;
  lm.signature = *rule;
  lm.end = end;
  // Words for a module Python did not name, where the finding's text needs one.
  constexpr std::string_view k_unnamed_module = "(not named in the message)";
  const std::string subject = !failure.missing.empty()   ? failure.missing
                              : !failure.library.empty() ? failure.library
                              : !failure.module.empty()  ? failure.module
                                                         : std::string(k_unnamed_module);
  lm.fields.emplace_back("lib", subject);
  lm.fields.emplace_back("kind", std::string(to_string(failure.kind)));
  if (!failure.library.empty() && !failure.missing.empty()) {
    lm.fields.emplace_back("failed", failure.library);
  }
  if (!failure.module.empty()) {
    lm.fields.emplace_back("module", failure.module);
  }
  if (failure.code >= 0) {
    lm.fields.emplace_back("code", std::to_string(failure.code));
  }
  if (!failure.symbol.empty()) {
    lm.fields.emplace_back("symbol", failure.symbol);
  }
  return lm;
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
  bool triggered = false;
  bool noise = false;
  for (std::uint32_t lit : scratch) {
    if (lit >= m_first_trigger) {
      triggered = true;
      continue;
    }
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
    noise = noise || sig.role == kb::SignatureRole::noise;
    out.push_back(std::move(lm));
    last_signature = s;
  }
  // A line a noise signature knows is harmless however it reads.
  if (triggered && !noise) {
    match_loader(line, out);
  }
}

} // namespace doctor::explain
