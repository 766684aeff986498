// SPDX-License-Identifier: MIT
#include <doctor/checks/helpers.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace doctor {
namespace {

loader::Resolution search(std::size_t absent_folders) {
  loader::Resolution r;
  r.name = "libcudnn_ops.so.9";
  r.steps.push_back({loader::FoundVia::rpath, "RPATH", "", "skipped: the caller has a RUNPATH"});
  for (std::size_t i = 0; i < absent_folders; ++i) {
    r.steps.push_back({loader::FoundVia::ld_library_path,
                       "LD_LIBRARY_PATH",
                       fmt::format("/opt/c{}/libcudnn_ops.so.9", i),
                       "absent"});
  }
  r.steps.push_back({loader::FoundVia::ld_so_cache,
                     "ld.so.cache",
                     "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9",
                     "found",
                     true});
  return r;
}

TEST(add_search_steps, a_short_search_lists_every_path) {
  FindingDraft d;
  checks::add_search_steps(search(checks::k_search_run - 1), d);
  ASSERT_EQ(d.evidence.size(), checks::k_search_run + 1);
  EXPECT_EQ(d.evidence[1].source, "2. LD_LIBRARY_PATH");
  EXPECT_EQ(d.evidence[1].value, "/opt/c0/libcudnn_ops.so.9: absent");
}

TEST(add_search_steps, a_run_over_many_folders_is_one_line_and_keeps_the_numbering) {
  FindingDraft d;
  checks::add_search_steps(search(1000), d);
  ASSERT_EQ(d.evidence.size(), 3U);
  EXPECT_EQ(d.evidence[0].source, "1. RPATH");
  EXPECT_EQ(d.evidence[1].source, "2-1001. LD_LIBRARY_PATH");
  EXPECT_EQ(d.evidence[1].value,
            "libcudnn_ops.so.9: absent in each of 1000 folders, from /opt/c0 to /opt/c999");
  EXPECT_EQ(d.evidence[2].source, "1002. ld.so.cache");
}

TEST(add_search_steps, a_different_outcome_or_name_ends_a_run) {
  loader::Resolution r = search(10);
  r.steps[5].outcome = "wrong ELF class: 32-bit";
  FindingDraft d;
  checks::add_search_steps(r, d);
  // RPATH, steps 2-5 (4, below the run length, listed), the 32-bit one, 7-11 (5, listed), cache.
  EXPECT_EQ(d.evidence.size(), 12U);
  EXPECT_EQ(d.evidence[5].value, "/opt/c4/libcudnn_ops.so.9: wrong ELF class: 32-bit");
}

} // namespace
} // namespace doctor
