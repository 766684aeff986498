// SPDX-License-Identifier: MIT
// The checks of checks/windows_services.cpp over the services and installed programs a collector
// reads from the registry: nvlddmkm disabled or missing, a half-done driver update, a CUDA
// toolkit deleted by hand.
#include "support/check_fixtures.hpp"

#include <doctor/model/facts_json.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::find_id;
using test::has_evidence;
using test::has_fix_command;
using test::has_id;
using test::run_all;

constexpr const char* k_services_key = "registry:HKLM\\SYSTEM\\CurrentControlSet\\Services";
constexpr const char* k_uninstall =
    "registry:HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall";

facts::WindowsService service(std::string name, std::uint64_t start) {
  facts::WindowsService s;
  s.name = std::move(name);
  s.start = facts::Fact<std::uint64_t>::known(
      start, std::string(k_services_key) + "\\" + s.name + "\\Start");
  s.type = facts::Fact<std::uint64_t>::known(1, "registry");
  s.image_path =
      "\\SystemRoot\\System32\\DriverStore\\FileRepository\\nv_dispi.inf_amd64_1\\"
      "nvlddmkm.sys";
  s.source = std::string(k_services_key) + "\\" + s.name;
  return s;
}

// The fix commands of `f`, for failure messages.
std::string commands(const Finding& f) {
  std::string out;
  for (const Fix& x : f.fixes) {
    out += "[" + x.command + "] ";
  }
  return out;
}

void set_services(facts::Facts& f, std::vector<facts::WindowsService> services) {
  f.windows.services =
      facts::Fact<std::vector<facts::WindowsService>>::known(std::move(services), k_services_key);
}

facts::InstalledProgram
program(std::string kind, std::string name, std::string version, std::string location = "") {
  facts::InstalledProgram p;
  p.view = "HKLM";
  p.key = "{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_" + kind;
  p.kind = std::move(kind);
  p.display_name = std::move(name);
  p.display_version = std::move(version);
  p.publisher = "NVIDIA Corporation";
  p.install_location = std::move(location);
  p.source = std::string(k_uninstall) + "\\" + p.key;
  p.location_exists = p.install_location.empty()
                          ? facts::Fact<bool>::unknown("InstallLocation is not set")
                          : facts::Fact<bool>::unknown("not looked at");
  return p;
}

void set_programs(facts::Facts& f, std::vector<facts::InstalledProgram> programs) {
  f.windows.installed_programs =
      facts::Fact<std::vector<facts::InstalledProgram>>::known(std::move(programs), k_uninstall);
}

// A Windows machine whose display class key lists an RTX 3090 with driver 560.94.
facts::Facts windows_with_adapter() {
  auto f = test::machine_without_gpu();
  f.collection.os_family = "windows";
  facts::DisplayAdapter a;
  a.key = "0001";
  a.description = "NVIDIA GeForce RTX 3090";
  a.provider = "NVIDIA";
  a.vendor_id = 0x10de;
  a.driver_version = "32.0.15.6094";
  a.nvidia_version = test::known("560.94", "registry:…\\0001\\DriverVersion");
  f.windows.display_adapters = facts::Fact<std::vector<facts::DisplayAdapter>>::known(
      {a}, "registry:HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968}");
  return f;
}

TEST(check_windows_driver_service, a_disabled_nvlddmkm_is_an_error_with_the_command_to_start_it) {
  auto f = windows_with_adapter();
  set_services(f, {service("nvlddmkm", 4)});
  const auto findings = run_all(f);
  const Finding* s = find_id(findings, test::ids::k_windows_nvidia_service_not_loaded);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::error);
  EXPECT_NE(s->message.find("is disabled (Start 4, disabled)"), std::string::npos) << s->message;
  EXPECT_NE(s->message.find("NVIDIA GeForce RTX 3090"), std::string::npos) << s->message;
  EXPECT_TRUE(has_evidence(*s, "Start 4, disabled"));
  EXPECT_TRUE(has_evidence(*s, "display adapter 0001"));
  // The key is quoted for PowerShell by the one quoting function (bare: nothing in it needs it).
  EXPECT_TRUE(has_fix_command(
      *s,
      "Set-ItemProperty -Path HKLM:\\SYSTEM\\CurrentControlSet\\Services\\nvlddmkm -Name Start "
      "-Value 3"))
      << commands(*s);

  // Started on demand, as the driver installs it: nothing.
  set_services(f, {service("nvlddmkm", 3)});
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_nvidia_service_not_loaded));
  // Start unknown (an odd value type): no guess.
  auto odd = service("nvlddmkm", 4);
  odd.start = facts::Fact<std::uint64_t>::unknown("Start is not a number");
  set_services(f, {odd});
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_nvidia_service_not_loaded));
}

TEST(check_windows_driver_service, a_missing_nvlddmkm_is_an_error_only_with_an_nvidia_adapter) {
  auto f = windows_with_adapter();
  set_services(f, {service("NVDisplay.ContainerLocalSystem", 2)});
  const auto findings = run_all(f);
  const Finding* s = find_id(findings, test::ids::k_windows_nvidia_service_not_loaded);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->message.find("is not registered as a service"), std::string::npos) << s->message;
  EXPECT_FALSE(has_fix_command(*s, "Set-ItemProperty")); // nothing to set: reinstall
  // Without an NVIDIA adapter, a machine without the service is just a machine without NVIDIA.
  f.windows.display_adapters =
      facts::Fact<std::vector<facts::DisplayAdapter>>::known({}, "registry:…");
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_nvidia_service_not_loaded));
  // Services unknown: no finding either.
  f = windows_with_adapter();
  f.windows.services = facts::Fact<std::vector<facts::WindowsService>>::unknown("no SYSTEM hive");
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_nvidia_service_not_loaded));
}

TEST(check_windows_driver_install, another_installed_version_than_the_driver_files_is_a_warning) {
  auto f = windows_with_adapter();
  facts::DriverLibrary lib;
  lib.name = "libcuda";
  lib.path = "C:\\Windows\\System32\\nvcuda.dll";
  lib.version = test::known("560.94", "pe:C:\\Windows\\System32\\nvcuda.dll FileVersion");
  f.driver.libraries.push_back(lib);
  set_programs(f, {program("nvidia_driver", "NVIDIA Graphics Driver 566.36", "566.36")});
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, test::ids::k_windows_driver_install_incomplete);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_NE(d->message.find("NVIDIA Graphics Driver 566.36, but the driver's files are 560.94"),
            std::string::npos)
      << d->message;
  EXPECT_TRUE(has_evidence(*d, "NVIDIA Graphics Driver 566.36: 566.36"));
  EXPECT_EQ(d->evidence.front().source,
            std::string(k_uninstall)
                + "\\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_nvidia_driver\\DisplayVersion");
  EXPECT_TRUE(has_evidence(*d, "nvcuda.dll: 560.94"));
  EXPECT_TRUE(has_fix_command(*d, "Restart-Computer"));

  set_programs(f, {program("nvidia_driver", "NVIDIA Graphics Driver 560.94", "560.94")});
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_driver_install_incomplete));
  // A version that is no driver version is not compared.
  set_programs(f, {program("nvidia_driver", "NVIDIA Graphics Driver", "")});
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_driver_install_incomplete));
}

TEST(check_windows_stale_toolkit, cuda_entries_whose_folder_is_gone_are_info) {
  auto f = windows_with_adapter();
  const std::string dir = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4";
  auto dev = program("cuda", "NVIDIA CUDA Development 12.4", "12.4", dir + "\\");
  dev.location_exists = facts::Fact<bool>::known(false, "dir:" + dir);
  set_programs(f, {dev, program("cuda", "NVIDIA CUDA Runtime 12.4", "12.4")});
  f.environment["CUDA_PATH_V12_4"] = dir;
  facts::ProbedPath probe;
  probe.path = "c:\\program files\\nvidia gpu computing toolkit\\cuda\\v12.4";
  probe.exists = false;
  f.probed_paths.push_back(probe);
  const auto findings = run_all(f);
  const Finding* t = find_id(findings, test::ids::k_windows_cuda_toolkit_removed);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->severity, Severity::info);
  EXPECT_EQ(t->subject, "CUDA 12.4");
  EXPECT_NE(t->message.find("CUDA 12.4 (2 entries)"), std::string::npos) << t->message;
  EXPECT_EQ(t->evidence.front().source,
            std::string(k_uninstall)
                + "\\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_cuda\\InstallLocation");
  EXPECT_TRUE(has_evidence(*t, "NVIDIA CUDA Development 12.4: " + dir + "\\ does not exist"));
  EXPECT_TRUE(has_evidence(*t, dir + " does not exist"));
  EXPECT_TRUE(
      has_fix_command(*t,
                      "Remove-ItemProperty -Path "
                      "'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment' "
                      "-Name CUDA_PATH_V12_4"))
      << commands(*t);

  // The folder is there after all (the variable's probe says so): nothing.
  f.probed_paths.front().exists = true;
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_cuda_toolkit_removed));
  // A toolkit of that release was found elsewhere: nothing either.
  f.probed_paths.front().exists = false;
  facts::CudaToolkit tk;
  tk.path = "D:\\cuda";
  tk.version = facts::Fact<Version>::known(*Version::parse("12.4.131"), "file:version.json");
  f.cuda_toolkits.push_back(tk);
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_cuda_toolkit_removed));
  // Only the variable is known gone (no InstallLocation): still info, with the variable's fix.
  f.cuda_toolkits.clear();
  set_programs(f, {program("cuda", "NVIDIA CUDA Runtime 12.4", "12.4")});
  const Finding* v = find_id(run_all(f), test::ids::k_windows_cuda_toolkit_removed);
  ASSERT_NE(v, nullptr);
  // Nothing known about the folder at all (no location, no probe): no guess.
  f.probed_paths.clear();
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_cuda_toolkit_removed));
}

TEST(windows_services_facts, a_snapshot_without_the_fields_loads_and_gives_no_new_finding) {
  auto f = windows_with_adapter();
  set_services(f, {service("nvlddmkm", 4)});
  set_programs(f,
               {program("nvidia_driver", "NVIDIA Graphics Driver 566.36", "566.36"),
                program("vc_redist", "Microsoft Visual C++ 2015-2022 Redistributable (x64)", "")});
  auto round = facts::from_json_text(facts::to_json_text(f));
  ASSERT_TRUE(round) << round.error().message;
  EXPECT_EQ(round->windows.services, f.windows.services);
  EXPECT_EQ(round->windows.installed_programs, f.windows.installed_programs);

  // The same snapshot as an older doctor wrote it: no "services", no "installed_programs".
  auto j = facts::to_json(f);
  j["windows"].erase("services");
  j["windows"].erase("installed_programs");
  auto old = facts::from_json_text(j.dump());
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->windows.services.reason(), "not collected");
  const auto findings = run_all(*old);
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_nvidia_service_not_loaded));
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_driver_install_incomplete));

  // A kind outside the table is refused, naming the field.
  j = facts::to_json(f);
  j["windows"]["installed_programs"]["value"][0]["kind"] = "game";
  auto bad = facts::from_json_text(j.dump());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("windows.installed_programs[0].kind"), std::string::npos)
      << bad.error().message;
}

} // namespace
} // namespace doctor
