// SPDX-License-Identifier: MIT
// Family 6 (checks/unstable_hardware.cpp): a GPU that computes wrong results.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::find_id;
using test::has_id;
using test::run_all;
namespace ids = test::ids;

facts::Facts with_computation(const char* status, const char* detail) {
  facts::Facts f = test::machine_without_gpu();
  facts::ProbeRun run;
  run.probe = "cudnn";
  run.status = "answered";
  run.library.path = "/usr/lib/libcudnn.so.9";
  facts::ProbeComputation c;
  c.name = "convolution_forward";
  c.status = status;
  c.detail = detail;
  c.elements = 108;
  c.mismatches = 1;
  c.max_abs_error = "0.5";
  run.computations = {c};
  f.probe.ran = true;
  f.probe.runs = {run};
  return f;
}

TEST(check_probe_computations, a_wrong_result_is_critical_hardware_instability) {
  const auto findings =
      run_all(with_computation("mismatch", R"(first difference {"index":5,"got":1.5,"want":1.0})"));
  const Finding* f = find_id(findings, ids::k_hardware_compute_mismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::critical);
  EXPECT_EQ(f->cause_class, CauseClass::hardware_unstable);
  EXPECT_NE(f->message.find("1 of 108 values"), std::string::npos);
  EXPECT_NE(f->message.find("0.5"), std::string::npos);
}

TEST(check_probe_computations, a_failed_run_is_an_error_and_a_skipped_one_nothing) {
  EXPECT_TRUE(has_id(run_all(with_computation("failed", "cudnnConvolutionForward returned 8")),
                     ids::k_probe_computation_failed));
  const auto skipped = run_all(with_computation("skipped", "cudnnCreate gave no handle"));
  EXPECT_FALSE(has_id(skipped, ids::k_probe_computation_failed));
  EXPECT_FALSE(has_id(skipped, ids::k_hardware_compute_mismatch));
  EXPECT_FALSE(has_id(run_all(with_computation("passed", "")), ids::k_hardware_compute_mismatch));
}

} // namespace
} // namespace doctor
