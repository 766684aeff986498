// SPDX-License-Identifier: MIT
// The doctor's own failures (internal.cpp): a collector that failed is a finding.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::all_of;
using test::ids::k_internal_collector_failed;

TEST(check_collector_errors, each_failed_collector_is_a_finding) {
  auto facts = test::machine_without_gpu();
  facts.collection.errors.push_back({"cudnn", "boom"});
  facts.collection.errors.push_back({"python", "site-packages unreadable"});
  const auto results = test::run_all(facts);
  const auto found = all_of(results, k_internal_collector_failed);
  ASSERT_EQ(found.size(), 2U);
  const Finding& f = *found.front();
  EXPECT_EQ(f.severity, Severity::warning);
  EXPECT_EQ(f.subject, "cudnn");
  EXPECT_NE(f.message.find("The cudnn collector failed: boom."), std::string::npos) << f.message;
  ASSERT_EQ(f.evidence.size(), 1U);
  EXPECT_EQ(f.evidence[0].source, "collector:cudnn");
  EXPECT_EQ(found.back()->subject, "python");

  facts.collection.errors.clear();
  EXPECT_TRUE(all_of(test::run_all(facts), k_internal_collector_failed).empty());
}

} // namespace
} // namespace doctor
