// SPDX-License-Identifier: MIT
// The check of family 8 (os_updates.cpp): a kernel update that left the NVIDIA driver without a
// module for the running kernel.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::find_id;
using test::has_evidence;
using test::has_fix_command;
using test::has_id;
using test::known;
using test::run_all;
namespace ids = test::ids;

constexpr auto k_npos = std::string::npos;

// A GTX 1080 Ti without a loaded driver, running kernel 6.1.0-28 (Debian).
facts::Facts updated_machine(std::vector<facts::KernelModules> kernels,
                             std::vector<std::string> dkms) {
  auto f = test::machine_without_gpu();
  facts::PciScan scan;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x1b06, nullptr));
  f.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  f.os.kernel_release = known("6.1.0-28-amd64", "file:/proc/sys/kernel/osrelease");
  f.driver.installed_modules =
      facts::Fact<std::vector<facts::KernelModules>>::known(std::move(kernels), "dir:/lib/modules");
  f.driver.dkms_modules =
      facts::Fact<std::vector<std::string>>::known(std::move(dkms), "dir:/var/lib/dkms");
  return f;
}

const facts::KernelModules k_old_kernel{
    "6.1.0-26-amd64", {"/lib/modules/6.1.0-26-amd64/updates/dkms/nvidia-current.ko"}};

TEST(check_module_for_kernel, a_kernel_without_the_module_after_an_update_names_dkms) {
  auto f = updated_machine({k_old_kernel, {"6.1.0-28-amd64", {}}}, {"nvidia-current/535.183.01"});
  const auto findings = run_all(f);
  EXPECT_FALSE(has_id(findings, ids::k_driver_not_loaded)) << "the update is the cause";
  const Finding* d = find_id(findings, ids::k_driver_module_missing_for_kernel);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::error);
  EXPECT_EQ(d->cause_class, CauseClass::os_update);
  EXPECT_EQ(d->subject, "0000:01:00.0");
  EXPECT_NE(d->message.find("the running kernel 6.1.0-28-amd64 has no NVIDIA module, while other "
                            "installed kernels do (6.1.0-26-amd64; DKMS: "
                            "nvidia-current/535.183.01)"),
            k_npos)
      << d->message;
  EXPECT_TRUE(has_evidence(*d, "/lib/modules/6.1.0-28-amd64/modules.dep lists no NVIDIA module"));
  EXPECT_TRUE(has_evidence(
      *d, "kernel 6.1.0-26-amd64: /lib/modules/6.1.0-26-amd64/updates/dkms/nvidia-current.ko"));
  EXPECT_TRUE(has_evidence(*d, "DKMS trees: nvidia-current/535.183.01"));
  EXPECT_TRUE(has_fix_command(*d, "dkms autoinstall"));
  EXPECT_TRUE(has_fix_command(*d, "sudo dkms build nvidia-current/535.183.01 -k $(uname -r)"));
  EXPECT_FALSE(has_fix_command(*d, "ubuntu-drivers")) << "a Debian machine";
}

TEST(check_module_for_kernel, prebuilt_modules_without_dkms_and_a_kernel_tree_not_there) {
  // Ubuntu's prebuilt modules: no DKMS tree; /lib/modules of the running kernel does not exist.
  auto f = updated_machine({k_old_kernel}, {});
  f.os.id = known("ubuntu");
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_driver_module_missing_for_kernel);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("(6.1.0-26-amd64; DKMS: none)"), k_npos) << d->message;
  EXPECT_TRUE(has_evidence(*d, "/lib/modules/6.1.0-28-amd64 does not exist"));
  EXPECT_TRUE(has_fix_command(*d, "sudo ubuntu-drivers install"));
  EXPECT_FALSE(has_fix_command(*d, "dkms autoinstall"));
}

TEST(check_module_for_kernel, a_module_for_the_running_kernel_or_none_anywhere_is_not_an_update) {
  // The running kernel has its module: the driver is just not loaded.
  auto loaded = updated_machine(
      {k_old_kernel,
       {"6.1.0-28-amd64", {"/lib/modules/6.1.0-28-amd64/updates/dkms/nvidia-current.ko"}}},
      {"nvidia-current/535.183.01"});
  const auto with_module = run_all(loaded);
  EXPECT_FALSE(has_id(with_module, ids::k_driver_module_missing_for_kernel));
  EXPECT_TRUE(has_id(with_module, ids::k_driver_not_loaded));

  // No NVIDIA module for any kernel and no DKMS: the driver was never installed.
  auto never = updated_machine({{"6.1.0-28-amd64", {}}}, {});
  const auto not_installed = run_all(never);
  EXPECT_FALSE(has_id(not_installed, ids::k_driver_module_missing_for_kernel));
  EXPECT_TRUE(has_id(not_installed, ids::k_driver_not_loaded));

  // The running kernel unknown (a copied tree): no finding from a guess.
  auto unknown = updated_machine({k_old_kernel}, {"nvidia-current/535.183.01"});
  unknown.os.kernel_release = facts::Fact<std::string>::unknown("no /proc");
  EXPECT_FALSE(has_id(run_all(unknown), ids::k_driver_module_missing_for_kernel));

  // The module is loaded: nothing is missing.
  auto running = updated_machine({k_old_kernel}, {"nvidia-current/535.183.01"});
  running.driver.kernel_module_version = known("535.183.01");
  EXPECT_FALSE(has_id(run_all(running), ids::k_driver_module_missing_for_kernel));
}

} // namespace
} // namespace doctor
