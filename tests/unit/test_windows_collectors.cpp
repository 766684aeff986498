// SPDX-License-Identifier: MIT
// The collectors of a Windows disk over real hives (built by hivexregedit): every fact in
// facts.windows from the registry with its hive and key as the source, or "unknown, because …".
#include "support/hive_fixture.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/platform/registry_hive.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h> // mkfifo

#include <string>
#include <vector>

namespace doctor::collect {
namespace {

using test::TempDir;

constexpr const char* k_display =
    "\\ControlSet001\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";

const std::string k_system_reg = std::string(R"reg([\Select]
"Current"=dword:00000001

[\ControlSet001\Control\GraphicsDrivers]
"TdrDelay"=dword:0000000a

[\ControlSet001\Control\CrashControl]
"CrashDumpEnabled"=dword:00000003
"MinidumpDir"=hex(2):25,00,53,00,79,00,73,00,74,00,65,00,6d,00,52,00,6f,00,6f,00,74,00,25,00,5c,00,4d,00,69,00,6e,00,69,00,64,00,75,00,6d,00,70,00,00,00

[\ControlSet001\Control\Session Manager\Memory Management]
"PagingFiles"=hex(7):43,00,3a,00,5c,00,70,00,61,00,67,00,65,00,66,00,69,00,6c,00,65,00,2e,00,73,00,79,00,73,00,20,00,30,00,20,00,30,00,00,00,44,00,3a,00,5c,00,70,00,61,00,67,00,65,00,66,00,69,00,6c,00,65,00,2e,00,73,00,79,00,73,00,20,00,31,00,30,00,32,00,34,00,20,00,32,00,30,00,34,00,38,00,00,00,00,00

[\ControlSet001\Control\Session Manager\Environment]
"Path"="C:\\Windows\\system32;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin"
"PROCESSOR_ARCHITECTURE"="AMD64"

[)reg") + k_display + R"reg(\0000]
"DriverDesc"="Intel(R) UHD Graphics 630"
"ProviderName"="Intel Corporation"
"DriverVersion"="31.0.101.2111"
"MatchingDeviceId"="pci\\ven_8086&dev_3e92"

[)reg" + k_display + R"reg(\0001]
"DriverDesc"="NVIDIA GeForce RTX 2080"
"ProviderName"="NVIDIA"
"DriverVersion"="32.0.15.6094"
"DriverDate"="9-5-2024"
"InfPath"="oem12.inf"
"MatchingDeviceId"="pci\\ven_10de&dev_1e87&subsys_12345678"

[)reg" + k_display + R"reg(\Properties]
)reg";

constexpr const char* k_software_reg = R"reg([\Microsoft\Windows NT\CurrentVersion]
"ProductName"="Windows 10 Pro"
"EditionID"="Professional"
"DisplayVersion"="23H2"
"CurrentBuildNumber"="22631"
"CurrentMajorVersionNumber"=dword:0000000a
"CurrentMinorVersionNumber"=dword:00000000
"UBR"=dword:00000fc5
"SystemRoot"="C:\\WINDOWS"

[\Python\PythonCore\3.11]
"SysVersion"="3.11"
"DisplayName"="Python 3.11 (64-bit)"

[\Python\PythonCore\3.11\InstallPath]
@="C:\\Program Files\\Python311\\"
"ExecutablePath"="C:\\Program Files\\Python311\\python.exe"

[\Python\PythonCore\3.7-broken]
"SysVersion"="3.7"

[\Python\PyLauncher\AllUsers]
"Setting"="1"

[\WOW6432Node\Python\PythonCore\3.10-32\InstallPath]
@="C:\\Python310-32"

[\Microsoft\VisualStudio\14.0\VC\Runtimes\x64]
"Installed"=dword:00000001
"Version"="v14.40.33810.00"

[\WOW6432Node\Microsoft\VisualStudio\14.0\VC\Runtimes\x86]
"Installed"=dword:00000000
"Version"="v14.29.30133.00"
)reg";

constexpr const char* k_user_reg = R"reg([\Environment]
"Path"="C:\\Users\\alice\\miniconda3\\Library\\bin"

[\Software\Python\ContinuumAnalytics\Anaconda39-64\InstallPath]
@="C:\\Users\\alice\\miniconda3"

[\Software\Microsoft\DirectX\UserGpuPreferences]
"C:\\Users\\alice\\miniconda3\\python.exe"="GpuPreference=1;"
)reg";

facts::Facts collect_disk(const TempDir& tmp) {
  const platform::SysRoot root = platform::open_tree_root(tmp.path(), platform::Environment());
  CollectOptions options;
  options.collected_at = "2026-01-01T00:00:00Z";
  return collect(root, options);
}

void make_disk(const TempDir& tmp) {
  test::mkdirs(tmp.at("Windows/System32/DriverStore/FileRepository/nv_dispi.inf_amd64_1111"));
  test::mkdirs(tmp.at("Windows/System32/DriverStore/FileRepository/NV_DISPI.INF_amd64_2222"));
  test::mkdirs(tmp.at("Windows/System32/DriverStore/FileRepository/iigd_dch.inf_amd64_3333"));
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SYSTEM"), k_system_reg));
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SOFTWARE"), k_software_reg));
  ASSERT_TRUE(test::make_hive(tmp.at("Users/alice/NTUSER.DAT"), k_user_reg));
}

constexpr const char* k_system_hive = "hive:/Windows/System32/config/SYSTEM:HKLM\\SYSTEM";

TEST(WindowsCollectors, DisplayAdaptersFromTheClassKey) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  make_disk(tmp);
  const facts::Facts facts = collect_disk(tmp);
  EXPECT_EQ(facts.collection.os_family, "windows");
  EXPECT_TRUE(facts.collection.errors.empty());
  const auto& adapters = facts.windows.display_adapters;
  ASSERT_TRUE(adapters) << adapters.reason();
  EXPECT_EQ(adapters.source(),
            std::string(k_system_hive) + "\\ControlSet001\\Control\\Class\\"
                                         "{4d36e968-e325-11ce-bfc1-08002be10318}");
  ASSERT_EQ(adapters->size(), 2U); // "Properties" is no adapter
  const facts::DisplayAdapter& intel = (*adapters)[0];
  EXPECT_EQ(intel.description, "Intel(R) UHD Graphics 630");
  EXPECT_EQ(intel.vendor_id, 0x8086U);
  EXPECT_FALSE(intel.nvidia_version);
  EXPECT_EQ(intel.nvidia_version.reason(), "not an NVIDIA adapter");
  const facts::DisplayAdapter& nvidia = (*adapters)[1];
  EXPECT_EQ(nvidia.key, "0001");
  EXPECT_EQ(nvidia.provider, "NVIDIA");
  EXPECT_EQ(nvidia.driver_version, "32.0.15.6094");
  ASSERT_TRUE(nvidia.nvidia_version);
  EXPECT_EQ(*nvidia.nvidia_version, "560.94");
  EXPECT_EQ(nvidia.driver_date, "9-5-2024");
  EXPECT_EQ(nvidia.inf_path, "oem12.inf");
  EXPECT_EQ(nvidia.vendor_id, 0x10deU);
  EXPECT_EQ(nvidia.device_id, 0x1e87U);
  ASSERT_TRUE(facts.windows.nvidia_driver_packages);
  EXPECT_EQ(*facts.windows.nvidia_driver_packages,
            (std::vector<std::string>{
                "C:\\Windows\\System32\\DriverStore\\FileRepository\\NV_DISPI.INF_amd64_2222",
                "C:\\Windows\\System32\\DriverStore\\FileRepository\\nv_dispi.inf_amd64_1111"}));
  ASSERT_TRUE(facts.windows.gpu_preferences);
  EXPECT_EQ(facts.windows.gpu_preferences->at("C:\\Users\\alice\\miniconda3\\python.exe"),
            "GpuPreference=1;");
}

TEST(WindowsCollectors, SystemSettings) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  make_disk(tmp);
  const facts::Facts facts = collect_disk(tmp);
  const facts::WindowsInfo& w = facts.windows;
  ASSERT_TRUE(w.product_name);
  EXPECT_EQ(*w.product_name, "Windows 11 Pro"); // build 22631 still says "Windows 10"
  EXPECT_EQ(*w.build, "10.0.22631.4037");
  EXPECT_EQ(*w.display_version, "23H2");
  EXPECT_EQ(w.windows_dir, "C:\\WINDOWS");
  EXPECT_EQ(*facts.os.architecture, "x86_64");
  ASSERT_TRUE(w.tdr) << w.tdr.reason();
  EXPECT_EQ(*w.tdr->tdr_delay, 10U);
  EXPECT_EQ(w.tdr->tdr_delay.source(),
            std::string(k_system_hive) + "\\ControlSet001\\Control\\GraphicsDrivers\\TdrDelay");
  EXPECT_FALSE(w.tdr->tdr_level);
  EXPECT_EQ(w.tdr->tdr_level.reason(), "not set (Windows default 3: recover)");
  ASSERT_TRUE(w.crash_dumps);
  EXPECT_EQ(*w.crash_dumps->crash_dump_enabled, 3U);
  EXPECT_EQ(*w.crash_dumps->minidump_dir, "%SystemRoot%\\Minidump");
  ASSERT_TRUE(w.page_files);
  ASSERT_EQ(w.page_files->size(), 2U);
  EXPECT_TRUE((*w.page_files)[0].system_managed);
  EXPECT_EQ((*w.page_files)[1].path, "D:\\pagefile.sys");
  EXPECT_EQ((*w.page_files)[1].initial_size, 1024ULL << 20U);
  EXPECT_EQ((*w.page_files)[1].maximum_size, 2048ULL << 20U);
  EXPECT_EQ(
      *w.machine_path,
      "C:\\Windows\\system32;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin");
  EXPECT_EQ(*w.user_path, "C:\\Users\\alice\\miniconda3\\Library\\bin");
  EXPECT_EQ(w.user_path.source(), "hive:/Users/alice/NTUSER.DAT:HKCU\\Environment\\Path");
}

TEST(WindowsCollectors, PythonRegistrationsAndRuntimes) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  make_disk(tmp);
  const facts::Facts facts = collect_disk(tmp);
  const auto& pythons = facts.windows.python_registrations;
  ASSERT_TRUE(pythons) << pythons.reason();
  // HKCU first, then HKLM, then its 32-bit view; no PyLauncher, no tag without InstallPath.
  ASSERT_EQ(pythons->size(), 3U);
  EXPECT_EQ((*pythons)[0].hive, "HKCU");
  EXPECT_EQ((*pythons)[0].company, "ContinuumAnalytics");
  EXPECT_EQ((*pythons)[0].executable, "C:\\Users\\alice\\miniconda3\\python.exe");
  EXPECT_EQ((*pythons)[1].hive, "HKLM");
  EXPECT_EQ((*pythons)[1].tag, "3.11");
  EXPECT_EQ((*pythons)[1].version, "3.11");
  EXPECT_EQ((*pythons)[1].display_name, "Python 3.11 (64-bit)");
  EXPECT_EQ((*pythons)[1].executable, "C:\\Program Files\\Python311\\python.exe");
  EXPECT_EQ((*pythons)[2].hive, "HKLM32");
  EXPECT_EQ((*pythons)[2].executable, "C:\\Python310-32\\python.exe");
  const auto& runtimes = facts.windows.vc_runtimes;
  ASSERT_TRUE(runtimes) << runtimes.reason();
  ASSERT_EQ(runtimes->size(), 2U);
  EXPECT_EQ((*runtimes)[0].arch, "x64");
  EXPECT_TRUE((*runtimes)[0].installed);
  EXPECT_EQ((*runtimes)[0].version, "v14.40.33810.00");
  EXPECT_EQ((*runtimes)[1].arch, "x86");
  EXPECT_FALSE((*runtimes)[1].installed);
}

TEST(WindowsCollectors, AnUnreadableHiveMakesItsFactsUnknownWithTheReason) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  test::mkdirs(tmp.at("Windows/System32/config"));
  ASSERT_EQ(::mkfifo(tmp.at("Windows/System32/config/SYSTEM").c_str(), 0600), 0);
  ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SOFTWARE"), k_software_reg));
  const facts::Facts facts = collect_disk(tmp);
  const facts::WindowsInfo& w = facts.windows;
  ASSERT_FALSE(w.display_adapters);
  EXPECT_EQ(w.display_adapters.reason(),
            "hive /Windows/System32/config/SYSTEM: is a FIFO, not a regular file");
  ASSERT_FALSE(w.tdr);
  EXPECT_EQ(w.tdr.reason(), w.display_adapters.reason());
  // SOFTWARE still answers, and HKCU is missing, not "no Pythons registered there".
  ASSERT_TRUE(w.product_name);
  ASSERT_TRUE(w.python_registrations);
  EXPECT_EQ(w.python_registrations->size(), 2U);
  ASSERT_FALSE(w.user_path);
  EXPECT_NE(w.user_path.reason().find("no HKCU hive"), std::string::npos) << w.user_path.reason();
}

// The Microsoft Store's Python: its PEP 514 key cannot be enumerated, so it is found by its
// data folder under %LOCALAPPDATA%\Packages (known on a disk from the user's Shell Folders), and
// pip's packages are in the folder's LocalCache\local-packages. A python.org Python's user
// site-packages (%APPDATA%\Python\Python311) is read before its own.
TEST(WindowsCollectors, StorePythonAndUserSitePackages) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  make_disk(tmp);
  ASSERT_TRUE(test::make_hive(tmp.at("Users/alice/NTUSER.DAT"), std::string(k_user_reg) + R"reg(
[\Software\Microsoft\Windows\CurrentVersion\Explorer\Shell Folders]
"Local AppData"="C:\\Users\\alice\\AppData\\Local"
"AppData"="C:\\Users\\alice\\AppData\\Roaming"
)reg"));
  // The Store keeps the package's own keys (PEP 514's among them) in a private hive, not in
  // NTUSER.DAT: on a disk the install folder is found by its name in WindowsApps, the newest.
  tmp.write(
      "Program Files/WindowsApps/PythonSoftwareFoundation.Python.3.11_3.11.1000.0_x64__"
      "qbz5n2kfra8p0/python.exe",
      "MZ");
  const std::string store =
      "Program "
      "Files/WindowsApps/PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0";
  tmp.write(store + "/python.exe", "MZ");
  tmp.write(store + "/Lib/site-packages/pip/__init__.py", "");
  const std::string family = "PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0";
  const std::string store_site = "Users/alice/AppData/Local/Packages/" + family
                                 + "/LocalCache/local-packages/Python311/site-packages";
  tmp.write(store_site + "/torch/version.py", "__version__ = '2.5.1+cu121'\ncuda = '12.1'\n");
  tmp.write(store_site + "/torch/__init__.py", "");
  tmp.write(store_site + "/torch-2.5.1+cu121.dist-info/RECORD", "");
  // A data folder of another package and a Store Python without an install folder in view.
  test::mkdirs(
      tmp.at("Users/alice/AppData/Local/Packages/Microsoft.WindowsTerminal_8wekyb3d8bbwe"));
  test::mkdirs(
      tmp.at("Users/alice/AppData/Local/Packages/PythonSoftwareFoundation.Python.3.12_"
             "qbz5n2kfra8p0/LocalCache/local-packages/Python312/site-packages"));
  // python.org's 3.11 (HKLM) with torch only in the user's site-packages.
  tmp.write("Program Files/Python311/python.exe", "MZ");
  test::mkdirs(tmp.at("Program Files/Python311/Lib/site-packages"));
  const std::string user_site = "Users/alice/AppData/Roaming/Python/Python311/site-packages";
  tmp.write(user_site + "/torch/version.py", "__version__ = '2.4.0+cu118'\ncuda = '11.8'\n");
  tmp.write(user_site + "/torch/__init__.py", "");
  tmp.write(user_site + "/torch-2.4.0+cu118.dist-info/RECORD", "");

  const facts::Facts facts = collect_disk(tmp);
  auto env_at = [&](const std::string& prefix) -> const facts::PythonEnv* {
    for (const facts::PythonEnv& e : facts.python_envs) {
      if (e.prefix == prefix) {
        return &e;
      }
    }
    return nullptr;
  };
  const facts::PythonEnv* app = env_at(
      "C:\\Program Files\\WindowsApps\\PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__"
      "qbz5n2kfra8p0");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->kind, "store");
  EXPECT_EQ(app->found_via, (std::vector<std::string>{"store:" + family}));
  EXPECT_EQ(app->python_version.value_or(""), "3.11");
  EXPECT_EQ(app->site_packages.value_or(""),
            "C:\\Program Files\\WindowsApps\\PythonSoftwareFoundation.Python.3.11_3.11.2544.0_"
            "x64__qbz5n2kfra8p0\\Lib\\site-packages");
  ASSERT_EQ(app->frameworks.size(), 1U);
  EXPECT_EQ(app->frameworks[0].name, "torch");
  EXPECT_EQ(app->frameworks[0].location,
            "C:\\Users\\alice\\AppData\\Local\\Packages\\" + family
                + "\\LocalCache\\local-packages\\Python311\\site-packages\\torch");
  EXPECT_EQ(app->frameworks[0].version.value_or(""), "2.5.1+cu121");

  // 3.12 has no install folder in view: its data folder stands for it, with its user packages.
  const facts::PythonEnv* data = env_at(
      "C:\\Users\\alice\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.12_"
      "qbz5n2kfra8p0");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->kind, "store");
  EXPECT_EQ(data->python_version.value_or(""), "3.12");
  EXPECT_EQ(data->python_version.source(),
            "name:C:\\Users\\alice\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python."
            "3.12_qbz5n2kfra8p0");
  EXPECT_EQ(data->site_packages.value_or(""),
            "C:\\Users\\alice\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.12_"
            "qbz5n2kfra8p0\\LocalCache\\local-packages\\Python312\\site-packages");

  const facts::PythonEnv* org = env_at("C:\\Program Files\\Python311");
  ASSERT_NE(org, nullptr);
  EXPECT_EQ(org->kind, "system");
  EXPECT_EQ(org->site_packages.value_or(""), "C:\\Program Files\\Python311\\Lib\\site-packages");
  ASSERT_EQ(org->frameworks.size(), 1U);
  EXPECT_EQ(org->frameworks[0].location,
            "C:\\Users\\alice\\AppData\\Roaming\\Python\\Python311\\site-packages\\torch");
  EXPECT_EQ(org->frameworks[0].version.value_or(""), "2.4.0+cu118");
  EXPECT_EQ(env_at("C:\\Users\\alice\\AppData\\Local\\Packages\\Microsoft.WindowsTerminal_"
                   "8wekyb3d8bbwe"),
            nullptr);
}

} // namespace
} // namespace doctor::collect
