// SPDX-License-Identifier: MIT
// The check registry (all_checks.cpp) against findings.json: each check's emits are the rows that
// name it, every such row names a registered check, and a check stays inside one family.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace doctor {
namespace {

TEST(all_checks, each_check_emits_exactly_the_rows_that_name_it) {
  const kb::KnowledgeBase& kb = test::embedded_kb();
  std::map<std::string, std::set<std::string>> rows_of; // check -> ids of the rows naming it
  for (const kb::FindingTemplate& t : kb.findings()) {
    if (!t.check.empty()) {
      rows_of[t.check].insert(t.id);
    }
  }
  std::set<std::string> names;
  for (const checks::CheckDef& c : checks::all_checks()) {
    EXPECT_TRUE(names.insert(std::string(c.name)).second) << "two checks named " << c.name;
    EXPECT_FALSE(c.emits.empty()) << c.name;
    const std::set<std::string> emits(c.emits.begin(), c.emits.end());
    EXPECT_EQ(emits, rows_of[std::string(c.name)])
        << "check " << c.name << " is registered with the emits of another check";
  }
  for (const auto& [check, ids] : rows_of) {
    EXPECT_EQ(names.count(check), 1U)
        << "findings.json names check \"" << check << "\" (for " << *ids.begin()
        << "), which all_checks.cpp does not register";
  }
}

TEST(all_checks, a_check_stays_in_one_family_and_no_family_finding_lacks_a_check) {
  const kb::KnowledgeBase& kb = test::embedded_kb();
  for (const checks::CheckDef& c : checks::all_checks()) {
    std::set<std::string_view> families;
    for (std::string_view id : c.emits) {
      const kb::FindingTemplate* t = kb.finding(id);
      ASSERT_NE(t, nullptr) << id;
      families.insert(kb::to_string(t->family));
    }
    EXPECT_EQ(families.size(), 1U) << "check " << c.name << " spans families";
  }
  // Rows without a check are explain's, the crash evidence's, or the runner's own.
  for (const kb::FindingTemplate& t : kb.findings()) {
    if (t.check.empty()) {
      const bool elsewhere = t.family == kb::Family::explain
                             || t.family == kb::Family::crash_evidence
                             || t.id == kb::ids::k_internal_check_failed;
      EXPECT_TRUE(elsewhere) << t.id << " (family " << kb::to_string(t.family) << ") has no check";
    }
  }
}

TEST(all_checks, the_registry_runs_every_check_on_a_bare_machine_without_failing) {
  const auto findings = test::run_all(test::machine_without_gpu());
  EXPECT_FALSE(test::has_id(findings, kb::ids::k_internal_check_failed));
  EXPECT_TRUE(test::has_id(findings, kb::ids::k_gpu_not_found));
}

} // namespace
} // namespace doctor
