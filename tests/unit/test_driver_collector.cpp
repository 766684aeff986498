// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace doctor {
namespace {

using facts::Facts;

constexpr const char* k_proprietary =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
constexpr const char* k_open =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  "
    "(dvs-builder@U16-I3-B03-4-3)  Thu Jan 23 23:19:50 UTC 2025\n"
    "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n";
constexpr const char* k_multiarch = "/usr/lib/x86_64-linux-gnu";

// Runs the driver collector with the linker facts a Debian system would have.
Facts collect(const platform::SysRoot& root, Facts f = {}) {
  if (f.linker.default_dirs.empty()) {
    f.linker.default_dirs = {"/lib/x86_64-linux-gnu", k_multiarch, "/lib", "/usr/lib"};
  }
  collect::collect_driver(root, collect::CollectOptions{}, f);
  return f;
}

std::vector<std::string> paths(const std::vector<facts::DriverLibrary>& libs) {
  std::vector<std::string> out;
  for (const auto& l : libs) {
    out.push_back(l.path);
  }
  return out;
}

TEST(driver_collector, proprietary_kernel_module_version) {
  test::TempDir t;
  t.write("/proc/driver/nvidia/version", k_proprietary);
  const Facts f = collect(t.sysroot());
  const auto& d = f.driver;
  ASSERT_TRUE(d.kernel_module_version) << d.kernel_module_version.reason();
  EXPECT_EQ(*d.kernel_module_version, "535.104.05");
  EXPECT_EQ(d.kernel_module_version.source(), "file:/proc/driver/nvidia/version");
  EXPECT_EQ(d.kernel_module_type.value_or(""), "proprietary");
  EXPECT_EQ(d.kernel_module_banner.value_or(""),
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC "
            "2023");
}

TEST(driver_collector, open_kernel_module_version) {
  test::TempDir t;
  t.write("/proc/driver/nvidia/version", k_open);
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.driver.kernel_module_version.value_or(""), "570.86.15");
  EXPECT_EQ(f.driver.kernel_module_type.value_or(""), "open");
}

TEST(driver_collector, tree_without_proc_has_no_running_kernel_to_ask) {
  test::TempDir t;
  t.mkdir("/proc");
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.driver.kernel_module_version);
  EXPECT_NE(f.driver.kernel_module_version.reason().find("no running kernel"), std::string::npos)
      << f.driver.kernel_module_version.reason();
  EXPECT_EQ(f.driver.kernel_module_version.reason().find("not loaded"), std::string::npos);
}

TEST(driver_collector, missing_proc_version_means_module_not_loaded) {
  test::TempDir t;
  t.write("/proc/modules", "ext4 1 0 - Live 0x0\n");
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.driver.kernel_module_version);
  EXPECT_NE(f.driver.kernel_module_version.reason().find("not loaded"), std::string::npos)
      << f.driver.kernel_module_version.reason();
  EXPECT_FALSE(f.driver.kernel_module_type);
  EXPECT_FALSE(f.driver.kernel_module_banner);
}

TEST(driver_collector, junk_proc_version_is_unknown_not_guessed) {
  test::TempDir t;
  t.write("/proc/driver/nvidia/version", std::string("\x01\xff junk 1.2.3\nNVRM version: ???\n"));
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.driver.kernel_module_version);
  EXPECT_NE(f.driver.kernel_module_version.reason().find("no NVRM version line"),
            std::string::npos);
}

TEST(driver_collector, proc_version_that_is_a_directory_cannot_be_read) {
  test::TempDir t;
  t.mkdir("/proc/driver/nvidia/version");
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.driver.kernel_module_version);
  EXPECT_NE(f.driver.kernel_module_version.reason().find("cannot read"), std::string::npos)
      << f.driver.kernel_module_version.reason();
}

TEST(driver_collector, sys_module_version_is_trimmed) {
  test::TempDir t;
  t.write("/sys/module/nvidia/version", "535.104.05\n");
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.driver.sys_module_version.value_or(""), "535.104.05");
  test::TempDir none;
  const Facts g = collect(none.sysroot());
  ASSERT_FALSE(g.driver.sys_module_version);
  EXPECT_NE(g.driver.sys_module_version.reason().find("does not exist"), std::string::npos);
}

TEST(driver_collector, proc_modules_keeps_gpu_modules_sorted_and_spots_nouveau) {
  test::TempDir t;
  t.write("/proc/modules",
          "nvidia_uvm 1437696 0 - Live 0x0 (PO)\n"
          "ext4 1019904 1 - Live 0x0\n"
          "nvidia_drm 77824 0 - Live 0x0 (PO)\n"
          "nouveau 2285568 0 - Live 0x0\n"
          "nvidia 56807424 2 nvidia_uvm,nvidia_drm, Live 0x0 (PO)\n");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.driver.loaded_modules);
  EXPECT_EQ(*f.driver.loaded_modules,
            (std::vector<std::string>{"nouveau", "nvidia", "nvidia_drm", "nvidia_uvm"}));
  EXPECT_EQ(f.driver.nouveau_loaded.value_or(false), true);
}

TEST(driver_collector, nouveau_not_in_proc_modules_is_known_false) {
  test::TempDir t;
  t.write("/proc/modules", "nvidia 1 0 - Live 0x0\n");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.driver.nouveau_loaded);
  EXPECT_FALSE(*f.driver.nouveau_loaded);
}

TEST(driver_collector, without_proc_modules_nouveau_comes_from_sys_module) {
  test::TempDir t;
  t.mkdir("/sys/module/nouveau");
  const Facts f = collect(t.sysroot());
  EXPECT_FALSE(f.driver.loaded_modules);
  ASSERT_TRUE(f.driver.nouveau_loaded);
  EXPECT_TRUE(*f.driver.nouveau_loaded);
  EXPECT_EQ(f.driver.nouveau_loaded.source(), "file:/sys/module/nouveau");
  test::TempDir none;
  EXPECT_FALSE(collect(none.sysroot()).driver.nouveau_loaded);
}

TEST(driver_collector, versioned_libraries_are_found_once_through_their_links) {
  test::TempDir t;
  const std::string dir = k_multiarch;
  t.write(dir + "/libcuda.so.535.104.05", "elf");
  t.link("libcuda.so.535.104.05", dir + "/libcuda.so.1");
  t.link("libcuda.so.1", dir + "/libcuda.so");
  t.write(dir + "/libnvidia-ml.so.535.104.05", "elf");
  t.link("libnvidia-ml.so.535.104.05", dir + "/libnvidia-ml.so.1");
  t.write(dir + "/libcudart.so.12", "not a driver library");
  t.link("x86_64-linux-gnu", "/lib/x86_64-linux-gnu-alias"); // unrelated link
  const Facts f = collect(t.sysroot());
  const auto& libs = f.driver.libraries;
  ASSERT_EQ(libs.size(), 2U) << ::testing::PrintToString(paths(libs));
  EXPECT_EQ(libs[0].name, "libcuda");
  EXPECT_EQ(libs[0].path, dir + "/libcuda.so.535.104.05");
  EXPECT_EQ(libs[0].version.value_or(""), "535.104.05");
  EXPECT_EQ(libs[0].version.source(), "name:" + dir + "/libcuda.so.535.104.05");
  EXPECT_FALSE(libs[0].stub);
  EXPECT_EQ(libs[1].name, "libnvidia-ml");
  EXPECT_EQ(libs[1].version.value_or(""), "535.104.05");
}

TEST(driver_collector, merged_usr_lib_link_does_not_duplicate_libraries) {
  test::TempDir t;
  t.write(std::string(k_multiarch) + "/libcuda.so.550.54.15", "elf");
  t.link("usr/lib", "/lib");
  const Facts f = collect(t.sysroot());
  ASSERT_EQ(f.driver.libraries.size(), 1U) << ::testing::PrintToString(paths(f.driver.libraries));
  EXPECT_EQ(f.driver.libraries[0].path, std::string(k_multiarch) + "/libcuda.so.550.54.15");
}

TEST(driver_collector, unversioned_library_file_has_unknown_version) {
  test::TempDir t;
  t.write("/usr/lib/libcuda.so.1", "elf"); // a copy, not a link to the versioned file
  const Facts f = collect(t.sysroot());
  ASSERT_EQ(f.driver.libraries.size(), 1U);
  ASSERT_FALSE(f.driver.libraries[0].version);
  EXPECT_NE(f.driver.libraries[0].version.reason().find("carries no driver version"),
            std::string::npos);
}

TEST(driver_collector, stub_library_on_ld_library_path_is_marked) {
  test::TempDir t;
  t.write("/usr/local/cuda-12.4/lib64/stubs/libcuda.so", "stub");
  t.write("/usr/local/cuda-12.4/lib64/stubs/libnvidia-ml.so", "stub");
  const Facts f = collect(t.sysroot({{"LD_LIBRARY_PATH", "/usr/local/cuda-12.4/lib64/stubs/:"}}));
  // "libcuda.so" alone is not picked (it has no suffix at all); a "libcuda.so.1" stub link is.
  EXPECT_TRUE(f.driver.libraries.empty()) << ::testing::PrintToString(paths(f.driver.libraries));
  t.link("libcuda.so", "/usr/local/cuda-12.4/lib64/stubs/libcuda.so.1");
  const Facts g = collect(t.sysroot({{"LD_LIBRARY_PATH", "/usr/local/cuda-12.4/lib64/stubs/:"}}));
  ASSERT_EQ(g.driver.libraries.size(), 1U);
  EXPECT_TRUE(g.driver.libraries[0].stub);
  EXPECT_EQ(g.driver.libraries[0].path, "/usr/local/cuda-12.4/lib64/stubs/libcuda.so");
  EXPECT_FALSE(g.driver.libraries[0].version);
}

TEST(driver_collector, libraries_are_searched_in_linker_and_cache_directories) {
  test::TempDir t;
  t.write("/opt/nvidia/conf/libcuda.so.580.65.06", "a");
  t.write("/opt/nvidia/cache/libnvidia-ml.so.580.65.06", "b");
  t.write("/usr/lib/wsl/lib/libcuda.so.580.00", "c");
  Facts f;
  f.linker.conf_dirs = facts::Fact<std::vector<std::string>>::known({"/opt/nvidia/conf"}, "t");
  f.linker.cache = facts::Fact<std::vector<facts::LdCacheEntry>>::known(
      {{"libnvidia-ml.so.1", "/opt/nvidia/cache/libnvidia-ml.so.1", "x86-64"},
       {"libz.so.1", "/opt/zlib/libz.so.1", "x86-64"}},
      "t");
  f = collect(t.sysroot(), f);
  EXPECT_EQ(paths(f.driver.libraries),
            (std::vector<std::string>{"/opt/nvidia/conf/libcuda.so.580.65.06",
                                      "/usr/lib/wsl/lib/libcuda.so.580.00",
                                      "/opt/nvidia/cache/libnvidia-ml.so.580.65.06"}));
  EXPECT_EQ(f.driver.libraries[1].version.value_or(""), "580.00");
}

// WSL's driver store mount has libcuda.so.1.1: a soname-style name, not driver 1.1.
TEST(driver_collector, wsl_soname_style_name_is_not_a_driver_version) {
  test::TempDir t;
  t.write("/usr/lib/wsl/lib/libcuda.so.1.1", "elf");
  t.link("libcuda.so.1.1", "/usr/lib/wsl/lib/libcuda.so.1");
  t.write("/usr/lib/wsl/lib/libnvidia-ml.so.1", "elf");
  const Facts f = collect(t.sysroot());
  ASSERT_EQ(f.driver.libraries.size(), 2U) << ::testing::PrintToString(paths(f.driver.libraries));
  EXPECT_EQ(f.driver.libraries[0].path, "/usr/lib/wsl/lib/libcuda.so.1.1");
  EXPECT_FALSE(f.driver.libraries[0].version) << *f.driver.libraries[0].version;
  EXPECT_FALSE(f.driver.libraries[1].version) << *f.driver.libraries[1].version;
}

TEST(driver_collector, dangling_and_looping_library_links_are_skipped) {
  test::TempDir t;
  t.link("libcuda.so.535.104.05", std::string(k_multiarch) + "/libcuda.so.1");
  t.link("libnvidia-ml.so.1", std::string(k_multiarch) + "/libnvidia-ml.so.1");
  t.link("/usr/lib", "/usr/lib/libcuda.so.2"); // a link to a directory
  const Facts f = collect(t.sysroot());
  EXPECT_TRUE(f.driver.libraries.empty()) << ::testing::PrintToString(paths(f.driver.libraries));
}

TEST(driver_collector, device_nodes_are_listed_with_mode_and_kind) {
  test::TempDir t;
  t.write("/dev/nvidia0", "");
  t.write("/dev/nvidiactl", "");
  t.write("/dev/null", "");
  t.link("nvidia0", "/dev/nvidia-link");
  std::filesystem::permissions(t.at("/dev/nvidia0"), std::filesystem::perms(0666));
  std::filesystem::permissions(t.at("/dev/nvidiactl"), std::filesystem::perms(0600));
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.driver.device_nodes) << f.driver.device_nodes.reason();
  const auto& nodes = *f.driver.device_nodes;
  ASSERT_EQ(nodes.size(), 3U);
  EXPECT_EQ(nodes[0].path, "/dev/nvidia-link");
  EXPECT_EQ(nodes[0].kind, "symlink");
  EXPECT_EQ(nodes[1].path, "/dev/nvidia0");
  EXPECT_EQ(nodes[1].kind, "regular") << "a regular file where a device node should be";
  EXPECT_EQ(nodes[1].mode, "0666");
  EXPECT_EQ(nodes[2].path, "/dev/nvidiactl");
  EXPECT_EQ(nodes[2].mode, "0600");
  EXPECT_EQ(f.driver.device_nodes.source(), "dir:/dev");
}

TEST(driver_collector, missing_dev_is_unknown) {
  test::TempDir t;
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.driver.device_nodes);
  EXPECT_NE(f.driver.device_nodes.reason().find("/dev"), std::string::npos);
}

TEST(driver_collector, empty_dev_is_known_and_empty) {
  test::TempDir t;
  t.write("/dev/null", "");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.driver.device_nodes);
  EXPECT_TRUE(f.driver.device_nodes->empty());
}

TEST(driver_collector, nvidia_modules_of_each_installed_kernel_and_dkms_trees) {
  test::TempDir t;
  t.write("/lib/modules/6.1.0-26-amd64/modules.dep",
          "kernel/drivers/video/fbdev/nvidia/nvidiafb.ko.xz: kernel/drivers/video/vgastate.ko.xz\n"
          "updates/dkms/nvidia-current.ko:\n"
          "updates/dkms/nvidia-current-uvm.ko: updates/dkms/nvidia-current.ko\n");
  t.write("/lib/modules/6.1.0-28-amd64/modules.dep", "kernel/fs/ext4/ext4.ko.xz:\n");
  t.mkdir("/lib/modules/6.1.0-30-amd64");
  t.mkdir("/var/lib/dkms/nvidia-current/535.183.01/6.1.0-26-amd64");
  t.write("/var/lib/dkms/nvidia-current/kernel-6.1.0-26-amd64-x86_64", "link stand-in");
  t.mkdir("/var/lib/dkms/zfs/2.1.11");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.driver.installed_modules) << f.driver.installed_modules.reason();
  const auto& kernels = *f.driver.installed_modules;
  ASSERT_EQ(kernels.size(), 3U);
  EXPECT_EQ(kernels[0].kernel_release, "6.1.0-26-amd64");
  EXPECT_EQ(kernels[0].nvidia_modules,
            std::vector<std::string>{"/lib/modules/6.1.0-26-amd64/updates/dkms/nvidia-current.ko"});
  EXPECT_TRUE(kernels[1].nvidia_modules.empty());
  EXPECT_TRUE(kernels[2].nvidia_modules.empty()) << "no modules.dep: nothing listed";
  ASSERT_TRUE(f.driver.dkms_modules);
  EXPECT_EQ(*f.driver.dkms_modules, std::vector<std::string>{"nvidia-current/535.183.01"});
}

TEST(driver_collector, without_lib_modules_or_dkms_the_facts_say_why) {
  test::TempDir t;
  const Facts f = collect(t.sysroot());
  EXPECT_FALSE(f.driver.installed_modules);
  EXPECT_NE(f.driver.installed_modules.reason().find("/lib/modules"), std::string::npos);
  EXPECT_FALSE(f.driver.dkms_modules);
  EXPECT_NE(f.driver.dkms_modules.reason().find("DKMS is not installed"), std::string::npos);
}

} // namespace
} // namespace doctor
