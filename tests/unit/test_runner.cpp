// SPDX-License-Identifier: MIT
#include "support/facts_fixtures.hpp"

#include <doctor/checks/helpers.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace doctor {
namespace {

constexpr std::string_view k_gpu_ids[] = {"gpu.not_found"};
constexpr std::string_view k_info_ids[] = {"cuda.multiple_toolkits"};

void throwing_check(const facts::Facts&, const kb::KnowledgeBase&, checks::FindingSink&) {
  throw std::runtime_error("kaboom");
}

void undeclared_check(const facts::Facts&, const kb::KnowledgeBase&, checks::FindingSink& out) {
  FindingDraft d;
  d.id = "cudnn.multiple_copies";
  out.add(d);
}

void unrenderable_check(const facts::Facts&, const kb::KnowledgeBase&, checks::FindingSink& out) {
  FindingDraft d;
  d.id = "gpu.not_found"; // lacks its {scanned} parameter
  out.add(d);
}

void info_check(const facts::Facts&, const kb::KnowledgeBase&, checks::FindingSink& out) {
  FindingDraft d;
  d.id = "cuda.multiple_toolkits";
  d.subject = "z";
  d.params = {{"count", "2"}, {"list", "a; b"}};
  out.add(d);
}

void error_check(const facts::Facts&, const kb::KnowledgeBase&, checks::FindingSink& out) {
  FindingDraft d;
  d.id = "gpu.not_found";
  d.subject = "GPU";
  d.params = {{"scanned", "3"}, {"nvml", "NVML lists no device either"}};
  out.add(d);
}

TEST(runner, a_throwing_check_becomes_a_finding_and_others_still_run) {
  const auto kb = *kb::KnowledgeBase::load_embedded();
  const checks::CheckDef defs[] = {{"boom", k_gpu_ids, throwing_check},
                                   {"fine", k_gpu_ids, error_check}};
  const auto findings = checks::run_checks(test::machine_without_gpu(), kb, defs);
  ASSERT_EQ(findings.size(), 2U);
  const Finding* failed = test::find_id(findings, "internal.check_failed");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->subject, "boom");
  EXPECT_NE(failed->message.find("kaboom"), std::string::npos);
  EXPECT_TRUE(test::has_id(findings, "gpu.not_found"));
}

TEST(runner, undeclared_ids_and_unrenderable_drafts_are_refused) {
  const auto kb = *kb::KnowledgeBase::load_embedded();
  const checks::CheckDef defs[] = {{"sneaky", k_gpu_ids, undeclared_check},
                                   {"broken", k_gpu_ids, unrenderable_check}};
  const auto findings = checks::run_checks(test::machine_without_gpu(), kb, defs);
  ASSERT_EQ(findings.size(), 2U);
  for (const Finding& f : findings) {
    EXPECT_EQ(f.id, "internal.check_failed");
  }
  // Same severity and id: ordered by subject.
  EXPECT_EQ(findings[0].subject, "broken");
  EXPECT_NE(findings[0].message.find("scanned"), std::string::npos);
  EXPECT_EQ(findings[1].subject, "sneaky");
  EXPECT_NE(findings[1].message.find("does not declare"), std::string::npos);
}

TEST(runner, findings_are_sorted_worst_first) {
  const auto kb = *kb::KnowledgeBase::load_embedded();
  const checks::CheckDef defs[] = {{"info", k_info_ids, info_check},
                                   {"error", k_gpu_ids, error_check}};
  const auto findings = checks::run_checks(test::machine_without_gpu(), kb, defs);
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_EQ(findings[1].severity, Severity::info);
}

// The walks two checks of one run were given.
std::vector<const void*> g_walks_seen; // NOLINT: written by the checks below, read by the test

void walk_check(const facts::Facts& facts, const kb::KnowledgeBase& kb, checks::FindingSink&) {
  g_walks_seen.push_back(checks::loader_contexts(facts, kb).get());
  g_walks_seen.push_back(checks::windows_loader_contexts(facts, kb).get());
}

TEST(runner, the_checks_of_one_run_share_one_loader_walk) {
  const auto kb = *kb::KnowledgeBase::load_embedded();
  const facts::Facts facts = test::machine_without_gpu();
  const checks::CheckDef defs[] = {{"first", k_info_ids, walk_check},
                                   {"second", k_info_ids, walk_check}};
  g_walks_seen.clear();
  checks::run_checks(facts, kb, defs);
  ASSERT_EQ(g_walks_seen.size(), 4U);
  EXPECT_EQ(g_walks_seen[0], g_walks_seen[2]); // Linux walk, both checks
  EXPECT_EQ(g_walks_seen[1], g_walks_seen[3]); // Windows walk, both checks
  // Outside a run, each call walks afresh: nothing outlives the run that shared it.
  const auto a = checks::loader_contexts(facts, kb);
  const auto b = checks::loader_contexts(facts, kb);
  EXPECT_NE(a.get(), b.get());
  // A walks scope answers only for its own facts.
  const facts::Facts other = facts;
  const checks::LoaderWalks walks(facts, kb);
  EXPECT_EQ(checks::loader_contexts(facts, kb).get(), checks::loader_contexts(facts, kb).get());
  EXPECT_NE(checks::loader_contexts(other, kb).get(), checks::loader_contexts(facts, kb).get());
}

} // namespace
} // namespace doctor
