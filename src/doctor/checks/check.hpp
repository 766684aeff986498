// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/finding_ids.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/model/finding.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::checks {

// Collects what a check reports.
class FindingSink {
public:
  void add(FindingDraft draft) { m_drafts.push_back(std::move(draft)); }
  const std::vector<FindingDraft>& drafts() const { return m_drafts; }
  std::vector<FindingDraft> take() { return std::move(m_drafts); }

private:
  std::vector<FindingDraft> m_drafts;
};

// A check: a pure function of the facts and the knowledge base. It must not read the machine.
using CheckFn = void (*)(const facts::Facts&, const kb::KnowledgeBase&, FindingSink&);

// One row of the check registry: its name, every finding id it can emit (the runner refuses
// others), and the function. The registry takes `emits` from kb::emitted_by, generated from the
// findings.json rows whose "check" is `name`; a test holds the two together.
struct CheckDef {
  std::string_view name;
  std::span<const std::string_view> emits;
  CheckFn run;
};

} // namespace doctor::checks
