// SPDX-License-Identifier: MIT
#include <doctor/collect/nvml_report.hpp>

#ifndef _WIN32
#  include "support/temp_tree.hpp" // POSIX only: the fake /proc tree
#endif

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

TEST(nvml_probe, processes_are_merged_by_pid_and_their_memory_checked) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/l", "init": 0, "devices": [{"index": 0, "memory_total": 1000,
          "memory_free": 100, "memory_used": 900,
          "processes_compute": [{"pid": 42, "used": 600}, {"pid": 7}],
          "processes_graphics": [{"pid": 42, "used": 500}]}]})"));
  const auto& dev = (*info.devices)[0];
  EXPECT_EQ(dev.memory_used.value_or(0), 900U);
  ASSERT_TRUE(dev.processes);
  ASSERT_EQ(dev.processes->size(), 2U);
  const auto& seven = (*dev.processes)[0];
  EXPECT_EQ(seven.pid, 7U);
  EXPECT_FALSE(seven.used_memory);
  EXPECT_NE(seven.used_memory.reason().find("NVML_VALUE_NOT_AVAILABLE"), std::string::npos);
  const auto& both = (*dev.processes)[1];
  EXPECT_EQ(both.kind, "compute+graphics");
  EXPECT_EQ(both.used_memory.value_or(0), 600U); // one allocation seen twice: not 1100
}

TEST(nvml_probe, a_malformed_process_list_is_unknown_with_the_reason) {
  for (const char* list : {R"({"more_than": 256})",
                           R"({"error": 3})",
                           R"([{"pid": 0}])",
                           R"([{"used": 5}])",
                           R"("x")"}) {
    auto info = collect::nvml_facts_from_report(
        exited(std::string(
                   R"({"library": "/l", "init": 0, "devices": [{"index": 0, "processes_compute": )")
               + list + "}]}"));
    EXPECT_FALSE((*info.devices)[0].processes) << list;
  }
  auto absurd = collect::nvml_facts_from_report(exited(
      R"({"library": "/l", "init": 0, "devices": [{"index": 0,
          "processes_compute": [{"pid": 9, "used": 18446744073709551614}]}]})"));
  EXPECT_FALSE((*absurd.devices)[0].processes->at(0).used_memory);
}

#ifndef _WIN32
TEST(nvml_probe, process_names_come_from_proc_comm_under_the_root) {
  test::TempDir t;
  test::write_file(t.path() / "proc/42/comm", "python3\n");
  test::write_file(t.path() / "proc/43/comm", "\x1b[31mred\n");
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/l", "init": 0, "devices": [{"index": 0,
          "processes_compute": [{"pid": 42, "used": 1}, {"pid": 43}, {"pid": 44}]}]})"));
  collect::name_gpu_processes(test::fake_root(t.path()), info);
  const auto& procs = *(*info.devices)[0].processes;
  EXPECT_EQ(procs[0].name.value_or(""), "python3");
  EXPECT_EQ(procs[0].name.source(), "file:/proc/42/comm");
  EXPECT_EQ(procs[1].name.value_or(""), "\x1b[31mred"); // kept as set; the reports escape it
  ASSERT_FALSE(procs[2].name);
  EXPECT_NE(procs[2].name.reason().find("/proc/44/comm"), std::string::npos);
}
#endif // _WIN32

TEST(nvml_probe, a_second_replay_reading_is_kept) {
  auto info = collect::nvml_facts_from_report(exited(
      R"({"library": "/l", "init": 0, "devices": [{"index": 0, "telemetry": {
          "pcie_replay_count": 40, "pcie_replay_count_later": 47,
          "pcie_replay_interval_ms": 100}}]})"));
  const auto& t = *(*info.devices)[0].telemetry;
  EXPECT_EQ(t.at("pcie_replay_count_later"), 47U);
  EXPECT_EQ(t.at("pcie_replay_interval_ms"), 100U);
}

} // namespace
} // namespace doctor
