// SPDX-License-Identifier: MIT
#include <doctor/collect/nvml_report.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

platform::ProcessResult exited(std::string out, int code = 0) {
  platform::ProcessResult r;
  r.exited = true;
  r.exit_code = code;
  r.out = std::move(out);
  return r;
}

TEST(nvml_probe, a_killed_or_crashed_child_is_probe_failed_with_the_reason) {
  platform::ProcessResult hung;
  hung.timed_out = true;
  auto info = collect::nvml_facts_from_report(hung);
  EXPECT_EQ(info.status, "probe_failed");
  EXPECT_NE(info.detail.find("did not answer in time"), std::string::npos);
  EXPECT_FALSE(info.devices);
  EXPECT_EQ(info.devices.reason(), info.detail);

  platform::ProcessResult crashed;
  crashed.signaled = true;
  crashed.signal = 11;
  info = collect::nvml_facts_from_report(crashed);
  EXPECT_EQ(info.status, "probe_failed");
  EXPECT_NE(info.detail.find("crashed"), std::string::npos);

  info = collect::nvml_facts_from_report(exited("", 3));
  EXPECT_EQ(info.status, "probe_failed");
  EXPECT_NE(info.detail.find("status 3"), std::string::npos);
}

TEST(nvml_probe, garbage_output_is_probe_failed) {
  for (const char* out : {"", "not json", "[1,2]", "\x01\x02\x03"}) {
    EXPECT_EQ(collect::nvml_facts_from_report(exited(out)).status, "probe_failed") << out;
  }
}

TEST(nvml_probe, missing_library_keeps_the_loader_message) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library_error": "libnvidia-ml.so.1: cannot open shared object file: No such file or directory"})"));
  EXPECT_EQ(info.status, "library_not_found");
  EXPECT_NE(info.detail.find("cannot open shared object file"), std::string::npos);
  EXPECT_FALSE(info.library);
}

TEST(nvml_probe, init_failure_keeps_code_and_message) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/usr/lib/libnvidia-ml.so.1", "nvml_version": "12.535.261.03",
          "init": 9, "init_error": "Driver Not Loaded"})"));
  EXPECT_EQ(info.status, "init_failed");
  EXPECT_EQ(info.detail, "nvmlInit_v2 returned 9 (Driver Not Loaded)");
  EXPECT_EQ(info.init_result.value_or(0), 9);
  EXPECT_EQ(info.nvml_version.value_or(""), "12.535.261.03");
  EXPECT_EQ(info.library.value_or(""), "/usr/lib/libnvidia-ml.so.1");
  EXPECT_FALSE(info.driver_version);
}

TEST(nvml_probe, success_gives_driver_and_devices_with_nvml_sources) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/usr/lib/libnvidia-ml.so.1", "init": 0, "driver_version": "570.86.15",
          "cuda_driver_version": 12080,
          "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1",
                       "pci_bus_id": "00000000:18:00.0", "compute_capability": "9.0",
                       "memory_total": 85520809984, "memory_free": 1},
                      {"index": 1, "error": "GPU is lost"}]})"));
  EXPECT_EQ(info.status, "ok");
  EXPECT_EQ(info.cuda_driver_version.value_or(""), "12.8");
  ASSERT_TRUE(info.devices);
  ASSERT_EQ(info.devices->size(), 2U);
  const auto& d0 = (*info.devices)[0];
  EXPECT_EQ(d0.name.value_or(""), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d0.compute_capability.source(), "nvml:nvmlDeviceGetCudaComputeCapability");
  EXPECT_EQ(d0.memory_total.value_or(0), 85520809984ULL);
  const auto& d1 = (*info.devices)[1];
  EXPECT_FALSE(d1.name);
  EXPECT_NE(d1.name.reason().find("GPU is lost"), std::string::npos);
}

TEST(nvml_probe, wrongly_typed_fields_become_unknown_not_crashes) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/l", "init": 0, "driver_version": 5, "cuda_driver_version": "x",
          "devices": [{"index": 0, "name": ["a"], "memory_total": "big"}, 7]})"));
  EXPECT_EQ(info.status, "ok");
  EXPECT_FALSE(info.driver_version);
  EXPECT_FALSE(info.cuda_driver_version);
  ASSERT_TRUE(info.devices);
  ASSERT_EQ(info.devices->size(), 1U);
  EXPECT_FALSE((*info.devices)[0].name);
  EXPECT_FALSE((*info.devices)[0].memory_total);
}

} // namespace
} // namespace doctor
