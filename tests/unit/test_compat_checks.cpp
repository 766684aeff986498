// SPDX-License-Identifier: MIT
// The compatibility checks (compat_driver_checks.cpp, compat_build_checks.cpp, compat_facts.cpp)
// and the driver checks that compare versions (driver_checks.cpp), over in-memory facts and the
// embedded knowledge base.
#include "support/facts_fixtures.hpp"

#include <doctor/checks/compat_facts.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::find_id;
using test::has_id;
using test::known;
using test::run_all;

// A working machine: one GPU bound to the loaded module `driver`, with matching user-space
// libraries.
facts::Facts machine_with(std::uint32_t device_id, const char* driver) {
  auto f = test::machine_without_gpu();
  facts::PciScan scan;
  scan.devices_scanned = 7;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", device_id, "nvidia"));
  f.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  f.driver.kernel_module_version = known(driver, "file:/proc/driver/nvidia/version");
  f.driver.kernel_module_type = known("proprietary", "file:/proc/driver/nvidia/version");
  facts::DriverLibrary lib;
  lib.name = "libcuda";
  lib.path = std::string("/usr/lib/x86_64-linux-gnu/libcuda.so.") + driver;
  lib.version = known(driver, "name:" + lib.path);
  f.driver.libraries.push_back(lib);
  return f;
}

facts::Framework
framework(const char* name, const char* version, const char* cuda, const char* cudnn) {
  facts::Framework fw;
  fw.name = name;
  fw.location = std::string("/venv/lib/python3.11/site-packages/") + name;
  fw.version = known(version);
  fw.cuda_build = facts::Fact<bool>::known(true, "test");
  fw.cuda_version = known(cuda);
  fw.cudnn_version = cudnn != nullptr ? known(cudnn) : facts::Fact<std::string>::unknown("n/a");
  fw.cuda_archs = facts::Fact<std::vector<std::string>>::unknown("not read");
  return fw;
}

void add_env(facts::Facts& f, facts::Framework fw) {
  facts::PythonEnv env;
  env.prefix = "/venv";
  env.kind = "venv";
  env.frameworks.push_back(std::move(fw));
  f.python_envs.push_back(std::move(env));
}

bool has_fix_command(const Finding& f, std::string_view part) {
  return std::any_of(f.fixes.begin(), f.fixes.end(), [&](const Fix& x) {
    return x.command.find(part) != std::string::npos;
  });
}

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

TEST(check_driver_for_cuda, driver_470_with_a_cu121_torch_is_an_error_with_the_cu118_way_out) {
  auto f = machine_with(0x2204, "470.223.02");
  add_env(f, framework("torch", "2.1.2+cu121", "12.1", "8.9.2.26"));
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, "compat.driver_too_old");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::error);
  EXPECT_EQ(d->cause_class, CauseClass::driver_too_old);
  EXPECT_NE(d->message.find("525.60.13"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("470.223.02"), std::string::npos);
  EXPECT_TRUE(has_fix_command(*d, "cu118")) << "the cu118 build runs on driver 470";
}

TEST(check_driver_for_cuda, minor_version_compatibility_is_applied) {
  // CUDA 12.4 was released with 550.54.14, but any 12.x runs on 525.60.13 and newer.
  auto f = machine_with(0x2684, "535.183.01");
  add_env(f, framework("torch", "2.4.1+cu124", "12.4", "9.1.0.70"));
  const auto findings = run_all(f);
  EXPECT_FALSE(has_id(findings, "compat.driver_too_old"));
  const Finding* d = find_id(findings, "compat.driver_minor_compat_only");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::info);
  EXPECT_NE(d->message.find("PTX"), std::string::npos);
}

TEST(check_driver_for_cuda, a_toolkit_too_new_for_the_driver_is_a_warning) {
  auto f = machine_with(0x2684, "535.183.01");
  facts::CudaToolkit tk;
  tk.path = "/usr/local/cuda-13.0";
  tk.version = test::known_version("13.0.2");
  f.cuda_toolkits.push_back(tk);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, "compat.driver_too_old");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_NE(d->message.find("580.65.06"), std::string::npos) << d->message;
}

TEST(check_driver_for_cuda, a_cudnn_built_for_cuda_12_needs_the_12_x_driver_floor) {
  auto f = machine_with(0x2204, "470.223.02");
  auto inst = test::cudnn_install("/opt/cudnn/lib", 9, {}, "9.1.0");
  inst.package = known("pip nvidia-cudnn-cu12 9.1.0.70");
  f.cudnn.push_back(inst);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, "compat.driver_too_old");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->subject, "/opt/cudnn/lib");
  EXPECT_NE(d->message.find("CUDA 12"), std::string::npos) << d->message;
  // Inside an environment whose framework is judged, the framework's finding covers it.
  add_env(f, framework("torch", "2.4.1+cu121", "12.1", "9.1.0.70"));
  f.cudnn.back().dir = "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib";
  const auto again = run_all(f);
  EXPECT_EQ(std::count_if(again.begin(),
                          again.end(),
                          [](const Finding& x) { return x.id == "compat.driver_too_old"; }),
            1);
}

TEST(check_gpu_driver_support, pascal_on_a_595_driver_is_dropped) {
  auto f = machine_with(0x1b80, "595.45.04");
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, "compat.gpu_dropped_by_driver");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("580"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("6.1"), std::string::npos);
  EXPECT_FALSE(has_id(run_all(machine_with(0x1b80, "580.95.05")), "compat.gpu_dropped_by_driver"));
}

TEST(check_gpu_driver_support, blackwell_needs_570_and_the_open_module) {
  const auto old = run_all(machine_with(0x2b85, "560.35.03"));
  EXPECT_TRUE(has_id(old, "compat.gpu_needs_newer_driver"));
  const auto proprietary = run_all(machine_with(0x2b85, "575.57.08"));
  EXPECT_TRUE(has_id(proprietary, "compat.gpu_needs_open_module"));
  auto open = machine_with(0x2b85, "575.57.08");
  open.driver.kernel_module_type = known("open");
  EXPECT_FALSE(has_id(run_all(open), "compat.gpu_needs_open_module"));
}

TEST(check_gpu_arch, gtx_1080_with_cu128_torch_has_no_kernel_image) {
  auto f = machine_with(0x1b80, "570.172.08");
  add_env(f, framework("torch", "2.8.0+cu128", "12.8", "9.10.2.21"));
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, "compat.gpu_arch_not_in_build");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cause_class, CauseClass::gpu_arch_unsupported);
  EXPECT_NE(d->message.find("6.1"), std::string::npos);
  EXPECT_TRUE(has_fix_command(*d, "cu126")) << "the cu126 builds still carry sm_60";
}

TEST(check_gpu_arch, the_build_s_own_arch_list_wins_over_the_table) {
  auto f = machine_with(0x1b80, "570.172.08");
  auto fw = framework("torch", "2.8.0+cu128", "12.8", "9.10.2.21");
  fw.cuda_archs = facts::Fact<std::vector<std::string>>::known({"sm_61", "sm_86"}, "fatbin:x");
  add_env(f, fw);
  EXPECT_FALSE(has_id(run_all(f), "compat.gpu_arch_not_in_build"));
}

TEST(check_gpu_arch, cudnn_9_11_and_newer_on_pascal_is_below_the_minimum) {
  auto f = machine_with(0x1b80, "570.172.08");
  auto inst =
      test::cudnn_install("/venv/lib/python3.11/site-packages/nvidia/cudnn/lib", 9, {}, "9.19.0");
  inst.package = known("pip nvidia-cudnn-cu12 9.19.0.56");
  f.cudnn.push_back(inst);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, "compat.gpu_below_cudnn_minimum");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("7.5"), std::string::npos) << d->message;
  EXPECT_TRUE(has_fix_command(*d, "nvidia-cudnn-cu12==9.10")) << "9.10 is the last for Pascal";
}

TEST(check_cudnn_for_framework, older_runtime_minor_than_compiled_is_an_error) {
  auto f = machine_with(0x2206, "535.183.01");
  add_env(f, framework("tensorflow", "2.10.1", "11.2", "8"));
  auto inst = test::cudnn_install("/venv/cudnn", 8, {}, "8.0.5");
  f.cudnn.push_back(inst);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, "compat.cudnn_older_than_build");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cause_class, CauseClass::version_mismatch_cudnn);
  EXPECT_NE(d->message.find("8.1"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("8.0.5"), std::string::npos);
}

TEST(check_cudnn_for_framework, another_major_and_another_cuda_build) {
  auto f = machine_with(0x2684, "550.54.15");
  add_env(f, framework("torch", "2.1.2+cu121", "12.1", "8.9.2.26"));
  auto inst = test::cudnn_install("/venv/lib/nvidia/cudnn/lib", 9, {}, "9.1.0");
  inst.package = known("pip nvidia-cudnn-cu12 9.1.0.70");
  f.cudnn.push_back(inst);
  const auto findings1 = run_all(f);
  const Finding* d = find_id(findings1, "compat.cudnn_major_mismatch");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(has_fix_command(*d, "nvidia-cudnn-cu12==8.9.2.26"));

  f.cudnn.back() = test::cudnn_install("/venv/lib/nvidia/cudnn/lib", 8, {}, "8.9.2");
  f.cudnn.back().package = known("pip nvidia-cudnn-cu11 8.9.2.26");
  EXPECT_TRUE(has_id(run_all(f), "compat.cudnn_cuda_mismatch"));
}

TEST(check_tensorflow_windows, tf_2_15_on_windows_with_a_gpu_has_no_gpu_support) {
  auto f = machine_with(0x2786, "560.94");
  f.collection.os_family = "windows";
  auto fw = framework("tensorflow", "2.15.0", "12.2", "8");
  fw.cuda_build = facts::Fact<bool>::known(false, "build_info");
  add_env(f, fw);
  const auto findings2 = run_all(f);
  const Finding* d = find_id(findings2, "compat.tensorflow_windows_no_gpu");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cause_class, CauseClass::framework_no_gpu_support);
  EXPECT_TRUE(has_fix_command(*d, "wsl"));
  EXPECT_TRUE(has_fix_command(*d, "tensorflow<2.11"));
  // TF 2.10 is the last native GPU build: no finding.
  f.python_envs.front().frameworks.front().version = known("2.10.1");
  EXPECT_FALSE(has_id(run_all(f), "compat.tensorflow_windows_no_gpu"));
}

TEST(check_driver_version_mismatch, module_and_libraries_of_different_releases) {
  auto f = machine_with(0x2684, "535.183.01");
  f.driver.libraries.front().version = known("535.216.01");
  const auto findings3 = run_all(f);
  const Finding* d = find_id(findings3, "driver.version_mismatch");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("535.216.01"), std::string::npos);
  EXPECT_TRUE(has_fix_command(*d, "reboot"));
  EXPECT_FALSE(has_id(run_all(machine_with(0x2684, "535.183.01")), "driver.version_mismatch"));
  // cuda-compat's newer libcuda over an older module is forward compatibility, not a mismatch.
  auto compat = machine_with(0x2330, "535.183.01");
  facts::DriverLibrary fwd = compat.driver.libraries.front();
  fwd.path = "/usr/local/cuda-12.8/compat/libcuda.so.570.124.06";
  fwd.version = known("570.124.06");
  compat.driver.libraries.push_back(fwd);
  EXPECT_FALSE(has_id(run_all(compat), "driver.version_mismatch"));
}

TEST(check_driver_loaded, a_kernel_without_the_module_after_an_update_names_dkms) {
  auto f = test::machine_without_gpu();
  facts::PciScan scan;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x1b06, nullptr));
  f.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  f.os.kernel_release = known("6.1.0-28-amd64");
  facts::KernelModules old_kernel{"6.1.0-26-amd64",
                                  {"/lib/modules/6.1.0-26-amd64/updates/dkms/nvidia-current.ko"}};
  facts::KernelModules new_kernel{"6.1.0-28-amd64", {}};
  f.driver.installed_modules =
      facts::Fact<std::vector<facts::KernelModules>>::known({old_kernel, new_kernel}, "test");
  f.driver.dkms_modules =
      facts::Fact<std::vector<std::string>>::known({"nvidia-current/535.183.01"}, "test");
  const auto findings = run_all(f);
  EXPECT_FALSE(has_id(findings, "driver.not_loaded"));
  const Finding* d = find_id(findings, "driver.module_missing_for_kernel");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cause_class, CauseClass::os_update);
  EXPECT_NE(d->message.find("6.1.0-26-amd64"), std::string::npos);
  EXPECT_TRUE(has_fix_command(*d, "dkms autoinstall"));
  // The running kernel has the module: the generic finding stays.
  new_kernel.nvidia_modules = {"/lib/modules/6.1.0-28-amd64/updates/dkms/nvidia-current.ko"};
  f.driver.installed_modules =
      facts::Fact<std::vector<facts::KernelModules>>::known({old_kernel, new_kernel}, "test");
  EXPECT_TRUE(has_id(run_all(f), "driver.not_loaded"));
}

} // namespace
} // namespace doctor
