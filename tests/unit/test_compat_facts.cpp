// SPDX-License-Identifier: MIT
// What the compatibility checks read from the facts (compat_facts.cpp): build architecture lists
// and which GPUs a build's code runs on.
#include <doctor/checks/compat_facts.hpp>
#include <doctor/util/version.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

TEST(compat_facts, build_archs_in_every_spelling) {
  const auto archs = checks::parse_build_archs({"sm_86", "compute_90", "sm_90a", "7.5", "9.0+PTX"});
  ASSERT_EQ(archs.size(), 6U);
  EXPECT_EQ(archs[0].cc.str(), "8.6");
  EXPECT_FALSE(archs[0].ptx);
  EXPECT_TRUE(archs[1].ptx);
  EXPECT_TRUE(archs[2].arch_specific);
  EXPECT_EQ(archs[3].cc.str(), "7.5");
}

TEST(compat_facts, sass_runs_on_the_same_major_and_ptx_on_newer_gpus) {
  const auto sm60 = checks::parse_build_archs({"sm_60"});
  EXPECT_TRUE(checks::build_runs_on(sm60, *Version::parse("6.1")));
  EXPECT_FALSE(checks::build_runs_on(sm60, *Version::parse("7.0")));
  EXPECT_FALSE(checks::build_runs_on(sm60, *Version::parse("5.2")));
  const auto ptx80 = checks::parse_build_archs({"compute_80"});
  EXPECT_TRUE(checks::build_runs_on(ptx80, *Version::parse("12.0")));
  EXPECT_FALSE(checks::build_runs_on(ptx80, *Version::parse("7.5")));
  const auto sm90a = checks::parse_build_archs({"sm_90a"});
  EXPECT_TRUE(checks::build_runs_on(sm90a, *Version::parse("9.0")));
  EXPECT_FALSE(checks::build_runs_on(sm90a, *Version::parse("9.1")));
  // A GPU newer than every SASS entry, without PTX: nothing runs (RTX 50 on a cu124 torch).
  const auto cu124 = checks::parse_build_archs({"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"});
  EXPECT_FALSE(checks::build_runs_on(cu124, *Version::parse("12.0")));
}

} // namespace
} // namespace doctor
