// SPDX-License-Identifier: MIT
// The stress check (checks/stress_results.cpp) over what a stress run observed: each verdict, with
// its evidence, rendered through the knowledge base.
#include "support/check_fixtures.hpp"

#include <doctor/model/stress.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::has_id;
using test::run_all;
namespace ids = test::ids;

facts::StressRun completed() {
  facts::StressRun r;
  r.status = "completed";
  r.level = "quick";
  r.device_name = "NVIDIA H200";
  r.library.path = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
  r.memory = facts::StressMemory{};
  r.memory->free_before = std::uint64_t{140} << 30;
  r.memory->bytes_covered = std::uint64_t{133} << 30;
  r.gemm = facts::StressGemm{};
  r.gemm->n = 2048;
  r.gemm->iterations = 10;
  r.gemm->reference_checked = 256;
  r.bandwidth = facts::StressBandwidth{};
  r.bandwidth->device_to_device = 4.2e12;
  r.bandwidth->host_to_device = 50e9;
  r.bandwidth->pinned = true;
  r.device_peak = 4.8e12;
  r.pcie_peak = 63e9;
  return r;
}

std::vector<Finding> judge(const facts::StressRun& run) {
  facts::Facts f = test::machine_without_gpu();
  f.stress = std::make_shared<const facts::StressRun>(run);
  std::vector<Finding> out;
  for (const Finding& x : run_all(f)) {
    if (x.id.starts_with("stress.") || x.id == ids::k_hardware_memory_test_errors
        || x.id == ids::k_hardware_gemm_mismatch) {
      out.push_back(x);
    }
  }
  return out;
}

TEST(check_stress_results, a_check_without_a_stress_run_says_nothing) {
  const auto all = run_all(test::machine_without_gpu());
  EXPECT_FALSE(has_id(all, ids::k_stress_not_run));
  EXPECT_FALSE(has_id(all, ids::k_internal_check_failed));
}

TEST(check_stress_results, a_healthy_run_has_no_finding) {
  EXPECT_TRUE(judge(completed()).empty());
}

TEST(check_stress_results, a_run_that_could_not_start_says_why) {
  facts::StressRun r;
  r.status = "not_run";
  r.detail = "the driver finds no GPU: cuInit returned 100 (CUDA_ERROR_NO_DEVICE)";
  const auto f = judge(r);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].id, ids::k_stress_not_run);
  EXPECT_NE(f[0].message.find("CUDA_ERROR_NO_DEVICE"), std::string::npos);
}

TEST(check_stress_results, a_memory_error_names_its_address_and_bits) {
  facts::StressRun r = completed();
  r.memory->errors = 3;
  r.memory->error_log = {{0x7e0000100040, 0x00000001, 0x00000021, "walking_ones"}};
  const auto f = judge(r);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].id, ids::k_hardware_memory_test_errors);
  EXPECT_EQ(f[0].severity, Severity::critical);
  EXPECT_NE(f[0].message.find("address 0x7e0000100040, bit(s) 5"), std::string::npos);
  EXPECT_NE(f[0].message.find("133.00 GiB"), std::string::npos);
}

TEST(check_stress_results, a_gemm_that_differs_or_gives_nan_is_critical) {
  facts::StressRun r = completed();
  r.gemm->nan = 4;
  const auto f = judge(r);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].id, ids::k_hardware_gemm_mismatch);
  EXPECT_NE(f[0].message.find("4 were NaN"), std::string::npos);
}

TEST(check_stress_results, bandwidth_below_half_the_peak_is_a_warning_and_no_peak_no_verdict) {
  facts::StressRun r = completed();
  r.bandwidth->device_to_device = 1.0e12;
  auto f = judge(r);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].id, ids::k_stress_bandwidth_low);
  EXPECT_NE(f[0].message.find("21%"), std::string::npos);
  r.device_peak.reset();
  EXPECT_TRUE(judge(r).empty());
  r = completed();
  r.bandwidth->host_to_device = 5e9;
  r.bandwidth->pinned = false; // pageable memory is not judged against the link
  EXPECT_TRUE(judge(r).empty());
}

TEST(check_stress_results, a_thermal_slowdown_during_the_run_is_reported_a_power_cap_is_not) {
  facts::StressRun r = completed();
  r.clock_event_reasons = 0x4; // SW_POWER_CAP: a GPU at its power limit, as under any full load
  EXPECT_TRUE(judge(r).empty());
  r.clock_event_reasons = 0x60;
  r.telemetry = {{"temperature_c", 40, 92}};
  const auto f = judge(r);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].id, ids::k_stress_gpu_slowed_down);
  EXPECT_NE(f[0].message.find("SW_THERMAL_SLOWDOWN | HW_THERMAL_SLOWDOWN"), std::string::npos);
  EXPECT_NE(f[0].message.find("92 C"), std::string::npos);
}

TEST(check_stress_results, a_crash_and_a_failed_call_are_errors_with_evidence) {
  facts::StressRun r;
  r.status = "crashed";
  r.detail = "the stress child was killed by SIGSEGV inside /x/libcuda.so.1";
  r.stderr_tail = "last words";
  auto f = judge(r);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].id, ids::k_stress_child_failed);
  EXPECT_TRUE(test::has_evidence(f[0], "last words"));
  r = completed();
  r.status = "failed";
  r.detail = "during the gemm phase cuLaunchKernel returned 700 (CUDA_ERROR_ILLEGAL_ADDRESS)";
  f = judge(r);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].id, ids::k_stress_call_failed);
}

} // namespace
} // namespace doctor
