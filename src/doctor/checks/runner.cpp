// SPDX-License-Identifier: MIT
#include <doctor/checks/helpers.hpp>
#include <doctor/checks/runner.hpp>
#include <doctor/kb/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <exception>

namespace doctor::checks {

namespace {

// The finding for a broken check. Rendered through the knowledge base when possible, built
// directly otherwise (an override KB may lack the row).
Finding
check_failed(const kb::KnowledgeBase& kb, std::string_view check, const std::string& error) {
  FindingDraft draft;
  draft.id = kb::ids::k_internal_check_failed;
  draft.subject = std::string(check);
  draft.params = {{"check", std::string(check)}, {"error", error}};
  draft.evidence = {{"check:" + std::string(check), error}};
  if (auto f = kb::render(kb, draft)) {
    return *f;
  }
  Finding f;
  f.id = draft.id;
  f.severity = Severity::warning;
  f.title = "A check failed";
  f.subject = draft.subject;
  f.message = fmt::format("The {} check failed: {}.", check, error);
  f.evidence = draft.evidence;
  return f;
}

} // namespace

std::vector<Finding> run_checks(const facts::Facts& facts,
                                const kb::KnowledgeBase& kb,
                                std::span<const CheckDef> checks) {
  std::vector<Finding> out;
  const LoaderWalks walks(facts, kb); // the checks share one loader walk
  for (const CheckDef& check : checks) {
    FindingSink sink;
    try {
      check.run(facts, kb, sink);
    } catch (const std::exception& e) {
      out.push_back(check_failed(kb, check.name, e.what()));
      continue;
    } catch (...) {
      out.push_back(check_failed(kb, check.name, "unknown exception"));
      continue;
    }
    for (const FindingDraft& draft : sink.drafts()) {
      if (std::find(check.emits.begin(), check.emits.end(), draft.id) == check.emits.end()) {
        out.push_back(check_failed(
            kb, check.name, fmt::format("emitted {}, which it does not declare", draft.id)));
        continue;
      }
      auto finding = kb::render(kb, draft);
      if (!finding) {
        out.push_back(check_failed(kb, check.name, finding.error().message));
        continue;
      }
      out.push_back(std::move(*finding));
    }
  }
  std::stable_sort(out.begin(), out.end(), finding_order);
  return out;
}

} // namespace doctor::checks
