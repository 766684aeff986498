// SPDX-License-Identifier: MIT
// The services and installed-programs collectors (services_collector.cpp, programs_collector.cpp)
// over real hives built by hivexregedit: the GPU services of SYSTEM and the GPU stack's
// Uninstall entries of SOFTWARE (both views) and NTUSER.DAT, each with its hive and key; and
// hostile hives (thousands of keys, odd value types, control characters) that give clean facts.
#include "support/hive_fixture.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/platform/registry_hive.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace doctor::collect {
namespace {

using test::TempDir;

constexpr const char* k_store =
    "\\\\SystemRoot\\\\System32\\\\DriverStore\\\\FileRepository\\\\nv_dispi.inf_amd64_1111\\\\";

const std::string k_system_reg = std::string(R"reg([\Select]
"Current"=dword:00000001

[\ControlSet001\Services\nvlddmkm]
"Start"=dword:00000004
"Type"=dword:00000001
"ImagePath"=hex(2):5c,00,53,00,79,00,73,00,74,00,65,00,6d,00,52,00,6f,00,6f,00,74,00,5c,00,6e,00,76,00,6c,00,64,00,64,00,6d,00,6b,00,6d,00,2e,00,73,00,79,00,73,00,00,00
"DisplayName"="nvlddmkm"

[\ControlSet001\Services\NVDisplay.ContainerLocalSystem]
"Start"=dword:00000002
"Type"=dword:00000010
"DisplayName"="NVIDIA Display Container LS"

[\ControlSet001\Services\NvTelemetry]
"Start"=dword:00000003
"ImagePath"=")reg") + k_store + R"reg(NvTelemetry.exe"

[\ControlSet001\Services\Tcpip]
"Start"=dword:00000001
"ImagePath"="\\SystemRoot\\System32\\drivers\\tcpip.sys"
)reg";

constexpr const char* k_software_reg =
    R"reg([\Microsoft\Windows\CurrentVersion\Uninstall\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_Display.Driver]
"DisplayName"="NVIDIA Graphics Driver 566.36"
"DisplayVersion"="566.36"
"Publisher"="NVIDIA Corporation"

[\Microsoft\Windows\CurrentVersion\Uninstall\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_CUDADevelopment_12.4]
"DisplayName"="NVIDIA CUDA Development 12.4"
"DisplayVersion"="12.4"
"Publisher"="NVIDIA Corporation"
"InstallLocation"="C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\"

[\Microsoft\Windows\CurrentVersion\Uninstall\7-Zip]
"DisplayName"="7-Zip 23.01 (x64)"
"Publisher"="Igor Pavlov"

[\Microsoft\Windows\CurrentVersion\Uninstall\{0b1e9d4f-python}]
"DisplayName"="Python 3.11.7 (64-bit)"
"DisplayVersion"="3.11.7150.0"
"Publisher"="Python Software Foundation"

[\WOW6432Node\Microsoft\Windows\CurrentVersion\Uninstall\{vc-x86}]
"DisplayName"="Microsoft Visual C++ 2015-2022 Redistributable (x86) - 14.40.33810"
"DisplayVersion"="14.40.33810.0"
"Publisher"="Microsoft Corporation"

[\WOW6432Node\Microsoft\Windows\CurrentVersion\Uninstall\{vc-min}]
"DisplayName"="Microsoft Visual C++ 2022 X86 Minimum Runtime - 14.40.33810"
"Publisher"="Microsoft Corporation"
)reg";

constexpr const char* k_user_reg =
    R"reg([\Software\Microsoft\Windows\CurrentVersion\Uninstall\Miniconda3 py311_24.1.2-0]
"DisplayName"="Miniconda3 py311_24.1.2-0 (Python 3.11.8 64-bit)"
"DisplayVersion"="py311_24.1.2-0"
"Publisher"="Anaconda, Inc."
"InstallLocation"="C:\\Users\\alice\\miniconda3"
)reg";

facts::Facts collect_disk(const TempDir& tmp) {
  const platform::SysRoot root = platform::open_tree_root(tmp.path(), platform::Environment());
  CollectOptions options;
  options.collected_at = "2026-01-01T00:00:00Z";
  return collect(root, options);
}

constexpr const char* k_system_hive = "hive:/Windows/System32/config/SYSTEM:HKLM\\SYSTEM";

TEST(WindowsServicesCollector, TheNvidiaServicesWithStartTypeAndTheirKey) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SYSTEM"), k_system_reg));
  const facts::Facts facts = collect_disk(tmp);
  EXPECT_TRUE(facts.collection.errors.empty());
  const auto& services = facts.windows.services;
  ASSERT_TRUE(services) << services.reason();
  EXPECT_EQ(services.source(), std::string(k_system_hive) + "\\ControlSet001\\Services");
  // The two named ones, and NvTelemetry by its ImagePath; never Tcpip.
  ASSERT_EQ(services->size(), 3U);
  const facts::WindowsService& container = (*services)[0];
  EXPECT_EQ(container.name, "NVDisplay.ContainerLocalSystem");
  EXPECT_EQ(*container.start, 2U);
  EXPECT_EQ(*container.type, 16U);
  EXPECT_EQ(container.display_name, "NVIDIA Display Container LS");
  EXPECT_EQ((*services)[1].name, "NvTelemetry");
  EXPECT_FALSE((*services)[1].type);
  const facts::WindowsService& driver = (*services)[2];
  EXPECT_EQ(driver.name, "nvlddmkm");
  EXPECT_EQ(*driver.start, 4U);
  EXPECT_EQ(driver.start.source(),
            std::string(k_system_hive) + "\\ControlSet001\\Services\\nvlddmkm\\Start");
  EXPECT_EQ(*driver.type, 1U);
  EXPECT_EQ(driver.image_path, "\\SystemRoot\\nvlddmkm.sys"); // REG_EXPAND_SZ, unexpanded
  EXPECT_EQ(driver.source, std::string(k_system_hive) + "\\ControlSet001\\Services\\nvlddmkm");
}

TEST(WindowsServicesCollector, NoServicesKeyIsUnknownNotEmpty) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SYSTEM"),
                              "[\\Select]\n\"Current\"=dword:00000001\n"));
  const facts::Facts facts = collect_disk(tmp);
  ASSERT_FALSE(facts.windows.services);
  EXPECT_EQ(facts.windows.services.reason(),
            "HKLM\\SYSTEM\\CurrentControlSet\\Services does not exist");
  // No SOFTWARE hive, no NTUSER.DAT: the programs are unknown, with why.
  ASSERT_FALSE(facts.windows.installed_programs);
  EXPECT_FALSE(facts.windows.installed_programs.reason().empty());
}

TEST(WindowsProgramsCollector, OnlyTheGpuStackFromEveryView) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SYSTEM"), k_system_reg));
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SOFTWARE"), k_software_reg));
  ASSERT_TRUE(test::make_hive(tmp.at("Users/alice/NTUSER.DAT"), k_user_reg));
  test::mkdirs(tmp.at("Users/alice/miniconda3"));
  const facts::Facts facts = collect_disk(tmp);
  const auto& programs = facts.windows.installed_programs;
  ASSERT_TRUE(programs) << programs.reason();
  EXPECT_NE(programs.source().find("hive:/Windows/System32/config/SOFTWARE:HKLM\\SOFTWARE\\"
                                   "Microsoft\\Windows\\CurrentVersion\\Uninstall"),
            std::string::npos)
      << programs.source();
  EXPECT_NE(programs.source().find("hive:/Users/alice/NTUSER.DAT:HKCU"), std::string::npos)
      << programs.source();
  std::vector<std::string> seen;
  for (const facts::InstalledProgram& p : *programs) {
    seen.push_back(p.view + " " + p.kind + " " + p.display_name);
  }
  // Sorted by view, then key; no 7-Zip, no VC++ minimum runtime.
  EXPECT_EQ(
      seen,
      (std::vector<std::string>{
          "HKCU conda Miniconda3 py311_24.1.2-0 (Python 3.11.8 64-bit)",
          "HKLM python Python 3.11.7 (64-bit)",
          "HKLM cuda NVIDIA CUDA Development 12.4",
          "HKLM nvidia_driver NVIDIA Graphics Driver 566.36",
          "HKLM32 vc_redist Microsoft Visual C++ 2015-2022 Redistributable (x86) - 14.40.33810",
      }));
  const facts::InstalledProgram& conda = (*programs)[0];
  EXPECT_EQ(conda.install_location, "C:\\Users\\alice\\miniconda3");
  ASSERT_TRUE(conda.location_exists);
  EXPECT_TRUE(*conda.location_exists);
  const facts::InstalledProgram& cuda = (*programs)[2];
  EXPECT_EQ(cuda.display_version, "12.4");
  EXPECT_EQ(cuda.publisher, "NVIDIA Corporation");
  EXPECT_EQ(
      cuda.source,
      "hive:/Windows/System32/config/SOFTWARE:HKLM\\SOFTWARE\\Microsoft\\Windows\\"
      "CurrentVersion\\Uninstall\\{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_CUDADevelopment_12.4");
  ASSERT_TRUE(cuda.location_exists); // not on the disk: deleted
  EXPECT_FALSE(*cuda.location_exists);
  EXPECT_EQ((*programs)[3].key, "{B2FE1952-0186-46C3-BAEC-A80AA35AC5B8}_Display.Driver");
  EXPECT_EQ((*programs)[3].display_version, "566.36");
  EXPECT_FALSE((*programs)[1].location_exists);
  EXPECT_EQ((*programs)[1].location_exists.reason(), "InstallLocation is not set");
}

bool printable(std::string_view s) {
  return std::none_of(
      s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

TEST(WindowsServicesCollector, AHostileHiveGivesCleanBoundedFacts) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  // 2100 services (more than a Windows has), names with control characters, an nvlddmkm whose
  // Start is a string and whose ImagePath is a number, and a very long DisplayName.
  std::string system = "[\\Select]\n\"Current\"=dword:00000001\n\n";
  for (int i = 0; i < 2100; ++i) {
    system += "[\\ControlSet001\\Services\\svc" + std::to_string(10000 + i)
              + "]\n\"Start\"=dword:00000003\n\n";
  }
  system +=
      "[\\ControlSet001\\Services\\nv\x1b[31mevil\x07]\n\"ImagePath\"=\"C:\\\\x\\\\nv_dispi.inf_"
      "amd64_1\\\\a\x01.exe\"\n\"Start\"=hex(b):01,00,00,00,00,00,00,00\n\n";
  system +=
      "[\\ControlSet001\\Services\\nvlddmkm]\n\"Start\"=\"4\"\n\"ImagePath\"=dword:00000007\n"
      "\"DisplayName\"=\""
      + std::string(5000, 'N') + "\"\n\n";
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SYSTEM"), system));
  // 2100 entries in the native view; in the 32-bit one, an NVIDIA entry whose name and texts hold
  // terminal escapes, with a number as DisplayVersion and a multi-string as Publisher.
  std::string software;
  for (int i = 0; i < 2100; ++i) {
    software += "[\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\app" + std::to_string(10000 + i)
                + "]\n\"DisplayName\"=\"NVIDIA thing " + std::to_string(i) + "\"\n\n";
  }
  software +=
      "[\\WOW6432Node\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\\x1b[2Jx\x07]\n"
      "\"DisplayName\"=\"NVIDIA \x1b[2Jdriver\"\n\"DisplayVersion\"=dword:00000005\n"
      "\"Publisher\"=hex(7):4e,00,00,00,00,00\n\n";
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SOFTWARE"), software));
  const facts::Facts facts = collect_disk(tmp);
  EXPECT_TRUE(facts.collection.errors.empty());

  const auto& services = facts.windows.services;
  ASSERT_TRUE(services) << services.reason();
  EXPECT_NE(services.source().find("(2102 keys, more than the 2048 a Windows has: only nvlddmkm "
                                   "and NVDisplay.ContainerLocalSystem read)"),
            std::string::npos)
      << services.source();
  ASSERT_EQ(services->size(), 1U); // read by name; the scan for NVIDIA image paths is skipped
  const facts::WindowsService& driver = services->front();
  EXPECT_EQ(driver.name, "nvlddmkm");
  ASSERT_FALSE(driver.start);
  EXPECT_NE(driver.start.reason().find("is not a number"), std::string::npos);
  EXPECT_TRUE(driver.image_path.empty());
  EXPECT_LE(driver.display_name.size(), 1030U);

  const auto& programs = facts.windows.installed_programs;
  ASSERT_TRUE(programs) << programs.reason();
  EXPECT_NE(programs.source().find("not read: HKLM: 2100 keys, more than the 2048"),
            std::string::npos)
      << programs.source();
  ASSERT_EQ(programs->size(), 1U);
  const facts::InstalledProgram& p = programs->front();
  EXPECT_EQ(p.view, "HKLM32");
  EXPECT_EQ(p.kind, "nvidia_other");
  EXPECT_EQ(p.key, "?[2Jx?");
  EXPECT_EQ(p.display_name, "NVIDIA ?[2Jdriver");
  EXPECT_EQ(p.display_version, "");
  EXPECT_EQ(p.publisher, "");
  EXPECT_TRUE(printable(p.key) && printable(p.display_name));
}

TEST(WindowsServicesCollector, ControlCharactersInANameAreSanitized) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SYSTEM"),
                              "[\\Select]\n\"Current\"=dword:00000001\n\n"
                              "[\\ControlSet001\\Services\\nv\x1b[31mevil\x07]\n"
                              "\"ImagePath\"=\"C:\\\\x\\\\nv_dispi.inf_amd64_1\\\\a\x01.exe\"\n"
                              "\"Start\"=hex(b):01,00,00,00,00,00,00,00\n"));
  const facts::Facts facts = collect_disk(tmp);
  const auto& services = facts.windows.services;
  ASSERT_TRUE(services) << services.reason();
  ASSERT_EQ(services->size(), 1U);
  const facts::WindowsService& s = services->front();
  EXPECT_EQ(s.name, "nv?[31mevil?");
  EXPECT_EQ(s.image_path, "C:\\x\\nv_dispi.inf_amd64_1\\a?.exe");
  EXPECT_EQ(*s.start, 1U); // a QWORD is a number too
  EXPECT_TRUE(printable(s.source) && printable(s.start.source())) << s.source;
}

} // namespace
} // namespace doctor::collect
