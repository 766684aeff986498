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
                       "pci_bus_id": "00000000:18:00.0", "compute_capability_major": 9,
                       "compute_capability_minor": 0,
                       "memory_total": 85520809984, "memory_free": 1},
                      {"index": 1, "error": "GPU is lost"}]})"));
  EXPECT_EQ(info.status, "ok");
  EXPECT_EQ(info.cuda_driver_version.value_or(""), "12.8");
  ASSERT_TRUE(info.devices);
  ASSERT_EQ(info.devices->size(), 2U);
  const auto& d0 = (*info.devices)[0];
  EXPECT_EQ(d0.name.value_or(""), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d0.compute_capability.value_or(""), "9.0");
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

// The reason a fact is unknown; fails the test when it is known.
template<typename T>
std::string rejected(const facts::Fact<T>& f) {
  EXPECT_FALSE(f) << "accepted";
  return f ? std::string() : f.reason();
}

TEST(nvml_probe, absurd_values_are_rejected_with_the_reason) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/l", "init": 0, "nvml_version": "12.\ufffd.86",
          "driver_version": {"unterminated": 96}, "cuda_driver_version": -2147483648,
          "device_count": 1,
          "devices": [{"index": 0, "name": "NVIDIA \u001b[31mH100", "uuid": "",
                       "pci_bus_id": {"unterminated": 32},
                       "compute_capability_major": -1, "compute_capability_minor": 1000,
                       "memory_total": 18446744073709551615, "memory_free": 18446744073709551615}],
          "child": {"uid": 65534, "gid": 65534, "capabilities_dropped": true,
                    "no_new_privs": true, "address_space_limit": 1073741824, "notes": []}})"));
  EXPECT_EQ(info.status, "ok");
  EXPECT_NE(rejected(info.nvml_version).find("not printable ASCII"), std::string::npos);
  EXPECT_NE(rejected(info.driver_version).find("96-byte buffer without a terminating NUL"),
            std::string::npos);
  EXPECT_EQ(rejected(info.cuda_driver_version),
            "nvmlSystemGetCudaDriverVersion_v2 gave a value out of range: -2147483648, not in "
            "1000..99990");
  ASSERT_TRUE(info.devices);
  ASSERT_EQ(info.devices->size(), 1U);
  const auto& d = (*info.devices)[0];
  EXPECT_NE(rejected(d.name).find("not printable ASCII"), std::string::npos);
  EXPECT_NE(rejected(d.uuid).find("it is empty"), std::string::npos);
  EXPECT_NE(rejected(d.pci_bus_id).find("terminating NUL"), std::string::npos);
  EXPECT_NE(rejected(d.compute_capability).find("-1, not in 1..99"), std::string::npos);
  EXPECT_NE(rejected(d.memory_total).find("18446744073709551615 bytes"), std::string::npos);
  EXPECT_FALSE(d.memory_free);
  ASSERT_TRUE(info.child);
  EXPECT_EQ(info.child->uid, 65534U);
  EXPECT_EQ(info.child->address_space_limit, 1073741824U);
}

TEST(nvml_probe, values_at_the_edges_of_their_ranges) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/l", "init": 0, "driver_version": "570.86.15.", "cuda_driver_version": 1000,
          "devices": [{"uuid": "GPU-", "pci_bus_id": "0000:18:00.8", "memory_total": 4,
                       "memory_free": 5, "compute_capability_major": 99,
                       "compute_capability_minor": 9},
                      {"uuid": "MIG-5a4b-3c2d", "pci_bus_id": "0000:18:00.7", "name": " "}]})"));
  EXPECT_NE(rejected(info.driver_version).find("not a version"), std::string::npos);
  EXPECT_EQ(info.cuda_driver_version.value_or(""), "1.0");
  ASSERT_TRUE(info.devices);
  ASSERT_EQ(info.devices->size(), 2U);
  const auto& d0 = (*info.devices)[0];
  EXPECT_NE(rejected(d0.uuid).find("not a GPU or MIG UUID"), std::string::npos);
  EXPECT_NE(rejected(d0.pci_bus_id).find("not a PCI address"), std::string::npos);
  EXPECT_EQ(d0.memory_total.value_or(0), 4U);
  EXPECT_NE(rejected(d0.memory_free).find("5 bytes, not in 1..4"), std::string::npos);
  EXPECT_EQ(d0.compute_capability.value_or(""), "99.9");
  const auto& d1 = (*info.devices)[1];
  EXPECT_EQ(d1.uuid.value_or(""), "MIG-5a4b-3c2d");
  EXPECT_EQ(d1.pci_bus_id.value_or(""), "0000:18:00.7");
  EXPECT_NE(rejected(d1.name).find("blank"), std::string::npos);
  EXPECT_FALSE(info.child); // no account of the confinement
}

TEST(nvml_probe, a_device_count_past_what_the_child_asks_about_is_rejected) {
  auto info = collect::nvml_facts_from_report(
      exited(R"({"library": "/l", "init": 0, "device_count": 4294967295, "devices": []})"));
  EXPECT_NE(rejected(info.devices).find("4294967295, not in 0..64"), std::string::npos);
}

TEST(nvml_probe, telemetry_is_kept_within_its_bounds) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/usr/lib/libnvidia-ml.so.1", "init": 0, "devices": [{"index": 0,
          "telemetry": {"clock_graphics_mhz": 1755, "power_limit_mw": 700000, "pcie_width": 16,
                        "temperature_c": 4000, "ecc_mode": -1, "unknown_reading": 5}}]})"));
  ASSERT_TRUE(info.devices);
  const auto& dev = (*info.devices)[0];
  ASSERT_TRUE(dev.telemetry);
  EXPECT_EQ(dev.telemetry.source(), "nvml:telemetry");
  EXPECT_EQ(dev.telemetry->at("clock_graphics_mhz"), 1755U);
  EXPECT_EQ(dev.telemetry->at("power_limit_mw"), 700000U);
  EXPECT_EQ(dev.telemetry->count("temperature_c"), 0U);
  EXPECT_EQ(dev.telemetry->count("ecc_mode"), 0U);
  EXPECT_EQ(dev.telemetry->count("unknown_reading"), 0U);
  ASSERT_EQ(dev.telemetry_notes.size(), 2U);
  EXPECT_NE(dev.telemetry_notes[0].find("temperature_c"), std::string::npos);
  EXPECT_NE(dev.telemetry_notes[0].find("4000"), std::string::npos);
  auto none = collect::nvml_facts_from_report(
      exited(R"({"library": "/l", "init": 0, "devices": [{"index": 0, "name": "NVIDIA H200"}]})"));
  EXPECT_FALSE((*none.devices)[0].telemetry);
}

} // namespace
} // namespace doctor
