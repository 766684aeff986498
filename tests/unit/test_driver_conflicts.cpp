// SPDX-License-Identifier: MIT
// The checks of family 2 (driver_conflicts.cpp): which NVIDIA GPUs the machine has and which
// driver serves them.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::all_of;
using test::find_id;
using test::has_evidence;
using test::has_fix_command;
using test::has_id;
using test::known;
using test::machine_with;
using test::run_all;
namespace ids = test::ids;

constexpr auto k_npos = std::string::npos;

TEST(check_gpu_presence, no_nvidia_device_on_the_bus_is_an_error_with_evidence) {
  const auto findings = run_all(test::machine_without_gpu());
  const Finding* f = find_id(findings, ids::k_gpu_not_found);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->message.find("6 PCI devices"), std::string::npos);
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_EQ(f->evidence.front().source, "dir:/sys/bus/pci/devices");
  EXPECT_FALSE(has_id(findings, ids::k_driver_not_loaded));
}

TEST(check_gpu_presence, unknown_pci_scan_is_not_called_absent) {
  auto facts = test::machine_without_gpu();
  facts.pci = facts::Fact<facts::PciScan>::unknown(
      "/sys/bus/pci/devices does not exist in the examined system");
  const auto findings = run_all(facts);
  EXPECT_FALSE(has_id(findings, ids::k_gpu_not_found));
  const Finding* f = find_id(findings, ids::k_gpu_presence_unknown);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("/sys/bus/pci/devices does not exist"), std::string::npos);
}

TEST(check_gpu_presence, a_gpu_seen_by_nvml_counts_even_without_a_pci_scan) {
  auto facts = test::machine_without_gpu();
  facts.pci = facts::Fact<facts::PciScan>::unknown("no /sys");
  facts::NvmlDevice dev;
  facts.driver.nvml.devices = facts::Fact<std::vector<facts::NvmlDevice>>::known({dev}, "nvml");
  const auto findings = run_all(facts);
  EXPECT_FALSE(has_id(findings, ids::k_gpu_not_found));
  EXPECT_FALSE(has_id(findings, ids::k_gpu_presence_unknown));
}

TEST(check_driver_loaded, gpu_without_kernel_module_names_the_gpu_and_the_reason) {
  auto facts = test::machine_without_gpu();
  facts::PciScan scan;
  scan.devices_scanned = 7;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x2330, nullptr));
  facts.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  const auto findings = run_all(facts);
  EXPECT_FALSE(has_id(findings, ids::k_gpu_not_found));
  const Finding* f = find_id(findings, ids::k_driver_not_loaded);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause_class, CauseClass::driver_not_loaded);
  EXPECT_EQ(f->subject, "0000:01:00.0");
  EXPECT_NE(f->message.find("10de:2330"), std::string::npos);
  EXPECT_NE(f->message.find("not loaded"), std::string::npos);
  // Debian gets the Debian install command, not Ubuntu's.
  bool debian_fix = false;
  for (const Fix& x : f->fixes) {
    EXPECT_EQ(x.command.find("ubuntu-drivers"), std::string::npos);
    debian_fix = debian_fix || x.command == "sudo apt install nvidia-driver";
  }
  EXPECT_TRUE(debian_fix);
  EXPECT_FALSE(has_id(findings, ids::k_driver_module_missing_for_kernel));

  // Bound to vfio-pci: reserved for a virtual machine, which the reason says.
  scan.nvidia_gpus.front().driver = known("vfio-pci", "link:driver");
  facts.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  const auto vfio = run_all(facts);
  const Finding* v = find_id(vfio, ids::k_driver_not_loaded);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("passthrough to a virtual machine"), k_npos) << v->message;
}

TEST(check_nouveau, nouveau_bound_is_the_root_cause_not_a_missing_driver) {
  auto facts = test::machine_without_gpu();
  facts::PciScan scan;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x1b80, "nouveau"));
  facts.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  facts.driver.nouveau_loaded = facts::Fact<bool>::known(true, "file:/proc/modules");
  const auto findings = run_all(facts);
  const Finding* f = find_id(findings, ids::k_driver_nouveau_bound);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause_class, CauseClass::driver_conflict);
  EXPECT_NE(f->message.find("is bound to the GPU"), std::string::npos);
  EXPECT_FALSE(has_id(findings, ids::k_driver_not_loaded));
}

TEST(check_nouveau, loaded_nouveau_with_gpu_on_nvidia_is_harmless) {
  auto facts = test::machine_without_gpu();
  facts::PciScan scan;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x2330, "nvidia"));
  facts.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  facts.driver.nouveau_loaded = facts::Fact<bool>::known(true, "file:/proc/modules");
  facts.driver.kernel_module_version = test::known("535.104.05");
  EXPECT_FALSE(has_id(run_all(facts), ids::k_driver_nouveau_bound));
}

TEST(check_driver_version_mismatch, module_and_libraries_of_different_releases) {
  auto f = machine_with(0x2684, "535.183.01");
  f.driver.libraries.front().version = known("535.216.01");
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_driver_version_mismatch);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("535.216.01"), std::string::npos);
  EXPECT_TRUE(has_fix_command(*d, "reboot"));
  EXPECT_FALSE(has_id(run_all(machine_with(0x2684, "535.183.01")), ids::k_driver_version_mismatch));
  // cuda-compat's newer libcuda over an older module is forward compatibility, not a mismatch.
  auto compat = machine_with(0x2330, "535.183.01");
  facts::DriverLibrary fwd = compat.driver.libraries.front();
  fwd.path = "/usr/local/cuda-12.8/compat/libcuda.so.570.124.06";
  fwd.version = known("570.124.06");
  compat.driver.libraries.push_back(fwd);
  EXPECT_FALSE(has_id(run_all(compat), ids::k_driver_version_mismatch));
}

TEST(check_driver_library, a_loaded_module_without_libcuda_on_the_loader_path) {
  auto f = machine_with(0x2330, "550.54.15");
  f.linker.default_dirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"};
  test::MemoryTree t;
  t.library("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
  t.record(f);
  const auto findings = run_all(f);
  const auto found = all_of(findings, ids::k_loader_libcuda_not_found);
  ASSERT_EQ(found.size(), 1U);
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.cause_class, CauseClass::driver_conflict);
  EXPECT_EQ(d.subject, "libcuda.so.1");
  // ld.so.cache (absent) and the two default directories.
  EXPECT_NE(
      d.message.find("The NVIDIA kernel module 550.54.15 is loaded, but no libcuda.so.1 is on "
                     "the loader path (3 paths searched)"),
      k_npos)
      << d.message;
  EXPECT_TRUE(has_evidence(d, "/usr/lib/x86_64-linux-gnu/libcuda.so.1: absent"));
  EXPECT_TRUE(has_fix_command(d, "NVIDIA_DRIVER_CAPABILITIES=compute,utility"));

  // Found in a default directory: nothing to say.
  t.library("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  t.record(f);
  EXPECT_FALSE(has_id(run_all(f), ids::k_loader_libcuda_not_found));

  // No module loaded: a missing libcuda is no driver conflict (driver_loaded or gpu_presence).
  auto no_module = test::machine_without_gpu();
  no_module.linker.default_dirs = f.linker.default_dirs;
  test::MemoryTree empty;
  empty.library("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
  empty.record(no_module);
  EXPECT_FALSE(has_id(run_all(no_module), ids::k_loader_libcuda_not_found));
}

TEST(check_nvml_probe, crashed_probe_is_a_warning_with_detail) {
  auto facts = test::machine_without_gpu();
  facts.driver.nvml.status = "probe_failed";
  facts.driver.nvml.detail = "the NVML probe crashed (signal or exception 0xb)";
  const auto results = run_all(facts);
  const Finding* f = find_id(results, ids::k_driver_nvml_probe_failed);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->message.find("crashed"), std::string::npos);
}

} // namespace
} // namespace doctor
