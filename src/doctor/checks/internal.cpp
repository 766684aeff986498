// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>

// The doctor's own failures: a collector that failed is a finding, never an abort, so that the
// report says what it could not look at. (A check that fails is the runner's, runner.cpp.)
namespace doctor::checks {

void check_collector_errors(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  for (const facts::CollectorError& e : facts.collection.errors) {
    FindingDraft d;
    d.id = kb::ids::k_internal_collector_failed;
    d.subject = e.collector;
    d.params = {{"collector", e.collector}, {"error", e.message}};
    d.evidence.push_back(Evidence{"collector:" + e.collector, e.message});
    out.add(std::move(d));
  }
}

} // namespace doctor::checks
