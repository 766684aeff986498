// SPDX-License-Identifier: MIT
// The checks of checks/windows_display.cpp over the Windows facts a collector reads from the
// registry (display class key, driver store, Session Manager\Environment and HKCU\Environment).
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::find_id;
using test::has_evidence;
using test::has_fix_command;
using test::has_id;
using test::run_all;

facts::DisplayAdapter adapter(std::string description,
                              std::string provider,
                              std::uint32_t vendor,
                              std::string version = "") {
  facts::DisplayAdapter a;
  a.key = "0000";
  a.description = std::move(description);
  a.provider = std::move(provider);
  a.vendor_id = vendor;
  a.driver_version = std::move(version);
  return a;
}

void set_adapters(facts::Facts& f, std::vector<facts::DisplayAdapter> adapters) {
  f.windows.display_adapters = facts::Fact<std::vector<facts::DisplayAdapter>>::known(
      std::move(adapters), "registry:HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968}");
}

// A live Windows machine whose PCI scan shows one RTX 3090 (none with `gpu` false).
facts::Facts windows_with_gpu(std::vector<facts::DisplayAdapter> adapters, bool gpu = true) {
  auto f = test::machine_without_gpu();
  f.collection.os_family = "windows";
  f.collection.live = true;
  facts::PciScan scan;
  scan.devices_scanned = 1;
  if (gpu) {
    scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x2204, ""));
  }
  f.pci = facts::Fact<facts::PciScan>::known(scan,
                                             "registry:HKLM\\SYSTEM\\CurrentControlSet\\Enum\\PCI");
  set_adapters(f, std::move(adapters));
  return f;
}

TEST(check_windows_basic_display, the_generic_adapter_standing_in_for_an_nvidia_gpu_is_an_error) {
  const auto basic = adapter("Microsoft Basic Display Adapter", "Microsoft", 0, "10.0.22621.1");
  auto f = windows_with_gpu({basic});
  const auto findings = run_all(f);
  const Finding* b = find_id(findings, test::ids::k_windows_basic_display_adapter);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->message.find("with Microsoft Basic Display Adapter"), std::string::npos)
      << b->message;
  EXPECT_TRUE(has_evidence(*b, "Microsoft Basic Display Adapter (provider Microsoft"));
  EXPECT_TRUE(has_fix_command(*b, "pnputil /enum-devices /class Display"));

  // With the NVIDIA driver installed beside the generic adapter (a second screen), nothing.
  set_adapters(f, {basic, adapter("NVIDIA GeForce RTX 3090", "NVIDIA", 0x10de, "32.0.15.6094")});
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_basic_display_adapter));
}

TEST(check_windows_basic_display, nothing_without_an_nvidia_gpu_on_the_bus) {
  auto f = windows_with_gpu({adapter("Microsoft Basic Display Adapter", "Microsoft", 0)}, false);
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_basic_display_adapter));
}

TEST(check_windows_driver_residue, several_nvidia_packages_are_listed_with_the_one_in_use) {
  auto rtx = adapter("NVIDIA GeForce RTX 3090", "NVIDIA", 0x10de, "32.0.15.6094");
  rtx.nvidia_version = test::known("560.94");
  rtx.inf_path = "oem12.inf";
  auto f = windows_with_gpu({rtx});
  const std::string store = "C:\\Windows\\System32\\DriverStore\\FileRepository\\";
  const auto packages = [&](std::vector<std::string> names) {
    f.windows.nvidia_driver_packages =
        facts::Fact<std::vector<std::string>>::known(std::move(names), "dir:" + store);
  };
  packages({store + "nv_dispi.inf_amd64_1a2b", store + "nv_dispi.inf_amd64_3c4d"});
  const auto findings = run_all(f);
  const Finding* r = find_id(findings, test::ids::k_windows_driver_store_residue);
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->message.find("keeps 2 NVIDIA display driver packages"), std::string::npos);
  EXPECT_NE(r->message.find("NVIDIA GeForce RTX 3090 560.94 (oem12.inf)"), std::string::npos)
      << r->message;

  packages({store + "nv_dispi.inf_amd64_3c4d"});
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_driver_store_residue));
}

TEST(check_windows_registry_path, a_cudnn_folder_added_in_the_registry_but_not_here_is_named) {
  auto f = windows_with_gpu({adapter("NVIDIA GeForce RTX 3090", "NVIDIA", 0x10de)});
  f.environment["Path"] = "C:\\Windows\\System32;C:\\Windows";
  f.environment["CUDNN_HOME"] = "C:\\Program Files\\NVIDIA\\CUDNN\\v8.9";
  f.windows.user_path = facts::Fact<std::string>::known(
      "%CUDNN_HOME%\\bin;C:\\Users\\bob\\AppData\\Local\\Microsoft\\WindowsApps",
      "registry:HKCU\\Environment\\Path");
  f.cudnn.push_back(
      test::cudnn_install("C:\\Program Files\\NVIDIA\\CUDNN\\v8.9\\bin", 8, {}, "8.9.4"));
  auto findings = run_all(f);
  const Finding* p = find_id(findings, test::ids::k_windows_registry_path_not_in_process);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->subject, "C:\\Program Files\\NVIDIA\\CUDNN\\v8.9\\bin");
  EXPECT_NE(p->message.find("on the user's PATH in the registry"), std::string::npos);
  EXPECT_TRUE(has_evidence(*p, "PATH entry %CUDNN_HOME%\\bin"));

  // Once the console has it (in any case and with a trailing backslash), nothing.
  f.environment["Path"] += ";c:\\program files\\nvidia\\cudnn\\v8.9\\bin\\";
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_registry_path_not_in_process));
}

// Hybrid graphics: an Intel GPU beside the NVIDIA one, and this Python set to "Power saving".
facts::Facts hybrid_with_preference(const std::string& value) {
  auto f = windows_with_gpu({adapter("Intel(R) UHD Graphics 630", "Intel Corporation", 0x8086),
                             adapter("NVIDIA GeForce RTX 3060 Laptop GPU", "NVIDIA", 0x10de)});
  facts::PythonEnv env;
  env.prefix = "C:\\Users\\alice\\miniconda3";
  env.kind = "conda";
  f.python_envs.push_back(env);
  f.windows.gpu_preferences = facts::Fact<std::map<std::string, std::string>>::known(
      {{"C:\\Users\\alice\\Miniconda3\\python.exe", value}},
      "registry:HKCU\\Software\\Microsoft\\DirectX\\UserGpuPreferences");
  return f;
}

TEST(check_windows_hybrid_graphics, power_saving_python_with_directml_is_a_warning) {
  auto f = hybrid_with_preference("SwapEffectUpgradeEnable=1;GpuPreference=1;");
  f.python_envs[0].packages.push_back({"torch-directml", "0.2.5.dev240914", ""});
  const auto findings = run_all(f);
  const Finding* h = find_id(findings, test::ids::k_windows_hybrid_python_power_saving);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->severity, Severity::warning);
  EXPECT_NE(h->message.find("torch-directml 0.2.5.dev240914"), std::string::npos) << h->message;
  EXPECT_NE(h->message.find("so on the Intel(R) UHD Graphics 630"), std::string::npos)
      << h->message;
  EXPECT_TRUE(has_evidence(*h, "GpuPreference=1;"));
  // The value name as the registry spells it, quoted for PowerShell where it needs it.
  EXPECT_TRUE(has_fix_command(*h,
                              "Set-ItemProperty -Path "
                              "'HKCU:\\Software\\Microsoft\\DirectX\\UserGpuPreferences' -Name "
                              "C:\\Users\\alice\\Miniconda3\\python.exe -Value "
                              "'GpuPreference=2;'"))
      << (h->fixes.empty() ? std::string("no fixes") : h->fixes[0].command);
}

TEST(check_windows_hybrid_graphics, without_directml_it_only_says_cuda_is_not_affected) {
  auto f = hybrid_with_preference("GpuPreference=1;");
  const auto findings = run_all(f);
  const Finding* h = find_id(findings, test::ids::k_windows_hybrid_python_power_saving);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->severity, Severity::info);
  EXPECT_NE(h->message.find("CUDA frameworks find the NVIDIA GeForce RTX 3060 Laptop GPU "
                            "themselves and are not affected"),
            std::string::npos)
      << h->message;
}

TEST(check_windows_hybrid_graphics, nothing_for_high_performance_one_gpu_or_another_program) {
  for (const char* value : {"GpuPreference=2;", "GpuPreference=0;", "", "GpuPreference=11;"}) {
    EXPECT_FALSE(has_id(run_all(hybrid_with_preference(value)),
                        test::ids::k_windows_hybrid_python_power_saving))
        << value;
  }
  auto one_gpu = hybrid_with_preference("GpuPreference=1;");
  set_adapters(one_gpu, {adapter("NVIDIA GeForce RTX 3090", "NVIDIA", 0x10de)});
  EXPECT_FALSE(has_id(run_all(one_gpu), test::ids::k_windows_hybrid_python_power_saving));
  auto other_program = hybrid_with_preference("GpuPreference=1;");
  other_program.windows.gpu_preferences = facts::Fact<std::map<std::string, std::string>>::known(
      {{"C:\\Games\\game.exe", "GpuPreference=1;"}}, "registry:HKCU");
  EXPECT_FALSE(has_id(run_all(other_program), test::ids::k_windows_hybrid_python_power_saving));
}

} // namespace
} // namespace doctor
