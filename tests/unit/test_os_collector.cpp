// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/collect/nvml_report.hpp>
#include <doctor/util/time.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace doctor {
namespace {

using facts::Facts;

// The bytes of a string literal, embedded NULs included.
template<std::size_t N>
std::string bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

// The first bytes of an ELF file: 64-bit, little-endian, e_machine = `machine`.
std::string elf_header(unsigned machine) {
  std::string h(64, '\0');
  h[0] = '\x7f';
  h[1] = 'E';
  h[2] = 'L';
  h[3] = 'F';
  h[4] = 2;  // ELFCLASS64
  h[5] = 1;  // ELFDATA2LSB
  h[6] = 1;  // EV_CURRENT
  h[16] = 3; // ET_DYN
  h[18] = static_cast<char>(machine & 0xFFU);
  h[19] = static_cast<char>(machine >> 8U);
  return h;
}

// A fake libc.so.6: an ELF header, some strings, and glibc's version banner.
std::string fake_libc(unsigned machine, const std::string& banner) {
  return elf_header(machine) + bytes("\0\0GNU C Library\0decoy\0") + banner + bytes("\0tail");
}

constexpr const char* k_debian_banner =
    "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n"
    "Copyright (C) 2022 Free Software Foundation, Inc.\n";

Facts collect(const platform::SysRoot& root) {
  Facts f;
  collect::collect_os(root, collect::CollectOptions{}, f);
  collect::collect_architecture(root, collect::CollectOptions{}, f);
  return f;
}

TEST(os_collector, reads_a_debian_tree) {
  test::TempDir t;
  t.write("/usr/lib/os-release",
          "# comment line\n"
          "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
          "NAME=\"Debian GNU/Linux\"\n"
          "VERSION_ID=\"12\"\n"
          "ID=debian\n");
  t.link("../usr/lib/os-release", "/etc/os-release");
  t.link("usr/lib", "/lib");
  t.write("/usr/lib/x86_64-linux-gnu/libc.so.6", fake_libc(62, k_debian_banner));
  t.write("/proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
  t.write("/proc/cpuinfo",
          "processor\t: 0\nmodel name\t: AMD EPYC 9654\n\nprocessor\t: 1\nmodel name\t: AMD EPYC "
          "9654\n\n");
  t.write("/proc/meminfo",
          "MemTotal:       16384 kB\nMemFree:  1 kB\nMemAvailable:    8192 kB\n"
          "SwapTotal:             0 kB\nSwapFree:              0 kB\n");
  const Facts f = collect(t.sysroot());
  const auto& os = f.os;
  ASSERT_TRUE(os.pretty_name);
  EXPECT_EQ(*os.pretty_name, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(os.pretty_name.source(), "file:/etc/os-release");
  EXPECT_EQ(os.id.value_or(""), "debian");
  EXPECT_EQ(os.version_id.value_or(""), "12");
  EXPECT_EQ(os.kernel_release.value_or(""), "6.1.0-18-amd64");
  ASSERT_TRUE(os.architecture) << os.architecture.reason();
  EXPECT_EQ(*os.architecture, "x86_64");
  EXPECT_EQ(os.architecture.source(), "file:/lib/x86_64-linux-gnu/libc.so.6 (ELF header)");
  ASSERT_TRUE(os.glibc_version) << os.glibc_version.reason();
  EXPECT_EQ(os.glibc_version->str(), "2.36");
  EXPECT_EQ(os.cpu_model.value_or(""), "AMD EPYC 9654");
  EXPECT_EQ(os.cpu_count.value_or(0), 2U);
  EXPECT_EQ(os.memory_total.value_or(0), 16384U * 1024);
  EXPECT_EQ(os.memory_available.value_or(0), 8192U * 1024);
  ASSERT_TRUE(os.swap_total);
  EXPECT_EQ(*os.swap_total, 0U);
  EXPECT_EQ(os.swap_free.source(), "file:/proc/meminfo");
}

TEST(os_collector, falls_back_to_usr_lib_os_release) {
  test::TempDir t;
  t.write("/usr/lib/os-release", "ID='arch'\nPRETTY_NAME='Arch Linux'\n");
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.os.id.value_or(""), "arch");
  EXPECT_EQ(f.os.id.source(), "file:/usr/lib/os-release");
  ASSERT_FALSE(f.os.version_id) << "Arch has no VERSION_ID";
  EXPECT_NE(f.os.version_id.reason().find("VERSION_ID"), std::string::npos);
}

TEST(os_collector, missing_os_release_is_unknown_with_reason) {
  test::TempDir t;
  t.mkdir("/etc");
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.os.pretty_name);
  EXPECT_NE(f.os.pretty_name.reason().find("os-release"), std::string::npos);
  EXPECT_FALSE(f.os.id);
  EXPECT_FALSE(f.os.version_id);
}

TEST(os_collector, dangling_or_looping_os_release_falls_back) {
  test::TempDir t;
  t.link("/etc/os-release-missing", "/etc/os-release");
  t.write("/usr/lib/os-release", "ID=fedora\n");
  EXPECT_EQ(collect(t.sysroot()).os.id.value_or(""), "fedora");
  test::TempDir loop;
  loop.link("os-release", "/etc/os-release");
  const Facts f = collect(loop.sysroot());
  EXPECT_FALSE(f.os.id);
}

TEST(os_collector, empty_value_is_unknown_not_empty) {
  test::TempDir t;
  t.write("/etc/os-release", "ID=\nPRETTY_NAME=\"\"\nVERSION_ID=1\n");
  const Facts f = collect(t.sysroot());
  EXPECT_FALSE(f.os.id);
  EXPECT_FALSE(f.os.pretty_name);
  EXPECT_EQ(f.os.version_id.value_or(""), "1");
}

TEST(os_collector, binary_junk_in_os_release_is_sanitized) {
  test::TempDir t;
  t.write("/etc/os-release",
          bytes("\xff\xfe\x00garbage\nPRETTY_NAME=\"Evil\x1b[2J\x07OS\"\nID=evil\xff\n"));
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.os.pretty_name);
  EXPECT_EQ(*f.os.pretty_name, "Evil?[2J?OS");
  EXPECT_EQ(f.os.id.value_or(""), "evil?");
}

TEST(os_collector, huge_os_release_is_skipped) {
  test::TempDir t;
  t.write("/etc/os-release", "ID=huge\nPRETTY_NAME=" + std::string(2 * 1024 * 1024, 'x') + "\n");
  t.write("/usr/lib/os-release", "ID=small\n");
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.os.id.value_or(""), "small");
}

TEST(os_collector, image_without_proc_has_unknown_kernel_cpu_and_memory) {
  test::TempDir t;
  t.write("/etc/os-release", "ID=debian\n");
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.os.kernel_release);
  EXPECT_NE(f.os.kernel_release.reason().find("image"), std::string::npos)
      << f.os.kernel_release.reason();
  EXPECT_FALSE(f.os.cpu_model);
  EXPECT_FALSE(f.os.cpu_count);
  ASSERT_FALSE(f.os.memory_total);
  EXPECT_NE(f.os.memory_total.reason().find("/proc/meminfo"), std::string::npos);
}

TEST(os_collector, live_root_without_kernel_release_says_it_cannot_read) {
  test::TempDir t;
  const platform::SysRoot live(t.path(), platform::Environment(), platform::OsFamily::linux, true);
  const Facts f = collect(live);
  ASSERT_FALSE(f.os.kernel_release);
  EXPECT_NE(f.os.kernel_release.reason().find("cannot read"), std::string::npos)
      << f.os.kernel_release.reason();
}

TEST(os_collector, kernel_release_is_trimmed_and_sanitized) {
  test::TempDir t;
  t.write("/proc/sys/kernel/osrelease", "  6.8.0-1015-nvidia\x01\n\n");
  EXPECT_EQ(collect(t.sysroot()).os.kernel_release.value_or(""), "6.8.0-1015-nvidia?");
}

TEST(os_collector, aarch64_libc_from_elf_header) {
  test::TempDir t;
  t.write("/usr/lib/aarch64-linux-gnu/libc.so.6",
          fake_libc(183,
                    "GNU C Library (Ubuntu GLIBC 2.39-0ubuntu8.4) stable release version "
                    "2.39.\n"));
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.os.architecture.value_or(""), "aarch64");
  ASSERT_TRUE(f.os.glibc_version);
  EXPECT_EQ(f.os.glibc_version->str(), "2.39");
  EXPECT_EQ(f.os.glibc_version.source(), "file:/usr/lib/aarch64-linux-gnu/libc.so.6");
}

TEST(os_collector, unknown_elf_machine_falls_back_to_directory_name) {
  test::TempDir t;
  t.write("/lib/x86_64-linux-gnu/libc.so.6", fake_libc(0x1234, k_debian_banner));
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.os.architecture.value_or(""), "x86_64");
  EXPECT_EQ(f.os.architecture.source(), "file:/lib/x86_64-linux-gnu/libc.so.6 (directory name)");
}

TEST(os_collector, lib64_libc_of_rpm_systems) {
  test::TempDir t;
  t.write("/usr/lib64/libc.so.6",
          fake_libc(62, "GNU C Library (GNU libc) stable release version 2.34.\n"));
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.os.architecture.value_or(""), "x86_64");
  EXPECT_EQ(f.os.glibc_version.value_or(Version()).str(), "2.34");
}

TEST(os_collector, libc_without_release_string_is_unknown_glibc) {
  test::TempDir t;
  t.write("/lib64/libc.so.6", bytes("\x01\x02junk that is not ELF\0GNU C Library\0"));
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.os.glibc_version);
  EXPECT_NE(f.os.glibc_version.reason().find("no glibc release string"), std::string::npos)
      << f.os.glibc_version.reason();
  EXPECT_FALSE(f.os.architecture) << "no ELF header and /lib64 names no architecture";
}

TEST(os_collector, no_libc_means_unknown_glibc_and_architecture) {
  test::TempDir t;
  t.write("/lib/ld-musl-x86_64.so.1", elf_header(62));
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.os.glibc_version);
  EXPECT_NE(f.os.glibc_version.reason().find("musl"), std::string::npos);
  EXPECT_FALSE(f.os.architecture);
}

TEST(os_collector, cpuinfo_without_processors_or_model_is_unknown) {
  test::TempDir t;
  t.write("/proc/cpuinfo", "flags\t: fpu vme\n");
  t.write("/proc/meminfo", "MemTotal: 10 kB\n");
  const Facts f = collect(t.sysroot());
  EXPECT_FALSE(f.os.cpu_model);
  EXPECT_FALSE(f.os.cpu_count);
  EXPECT_EQ(f.os.memory_total.value_or(0), 10U * 1024);
  ASSERT_FALSE(f.os.memory_available);
  EXPECT_NE(f.os.memory_available.reason().find("MemAvailable"), std::string::npos);
}

// The NVML child (Linux: /proc, /sys, /dev) is not started only where every sign of an NVIDIA
// driver is read and absent.
TEST(nvml_probe, the_child_is_skipped_only_where_no_driver_can_answer) {
  test::TempDir t;
  const auto root = t.sysroot();
  // /proc/devices unreadable: it may answer.
  EXPECT_FALSE(collect::nvml_cannot_answer(root));

  t.write("/proc/devices",
          "Character devices:\n  1 mem\n  4 tty\n 10 misc\n\nBlock devices:\n  7 loop\n"
          "259 nvidia-looking-block\n");
  const auto why = collect::nvml_cannot_answer(root);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("no NVIDIA kernel driver is loaded"), std::string::npos) << *why;
  EXPECT_NE(why->find("--nvml always"), std::string::npos) << *why;
  // A /dev/nvidiactl left without a driver changes nothing: its open() fails with ENXIO.
  t.write("/dev/nvidiactl", "");
  EXPECT_TRUE(collect::nvml_cannot_answer(root));

  t.write("/proc/devices", "Character devices:\n  1 mem\n195 nvidia-frontend\n");
  EXPECT_FALSE(collect::nvml_cannot_answer(root)) << "the driver registered its devices";
  t.write("/proc/devices", "Character devices:\n  1 mem\n");
  EXPECT_TRUE(collect::nvml_cannot_answer(root));
  for (const char* sign :
       {"/proc/driver/nvidia/version", "/sys/module/nvidia/version", "/dev/dxg"}) {
    test::TempDir u;
    u.write("/proc/devices", "Character devices:\n  1 mem\n");
    u.write(sign, "");
    EXPECT_FALSE(collect::nvml_cannot_answer(u.sysroot())) << sign;
  }
}

// The collection's time is UTC in any time zone: "CST-8" (a POSIX TZ string, no zone database
// needed) is China's, where a local time written with a "Z" is eight hours ahead.
TEST(collection_info, collected_at_is_utc_in_any_time_zone) {
  const char* before = std::getenv("TZ");
  const std::optional<std::string> saved =
      before ? std::optional<std::string>(before) : std::nullopt;
  ::setenv("TZ", "CST-8", 1);
  ::tzset();
  test::TempDir t;
  collect::CollectOptions options;
  options.only = {"environment"};
  const auto start = std::chrono::system_clock::now();
  const Facts f = collect::collect(t.sysroot(), options);
  const auto end = std::chrono::system_clock::now();
  if (saved) {
    ::setenv("TZ", saved->c_str(), 1);
  } else {
    ::unsetenv("TZ");
  }
  ::tzset();
  const std::string& at = f.collection.collected_at;
  ASSERT_EQ(at.size(), 20U) << at;
  ASSERT_EQ(at.back(), 'Z') << at;
  const auto seconds = [](std::chrono::system_clock::time_point tp) {
    return std::chrono::duration_cast<std::chrono::seconds>(tp.time_since_epoch()).count();
  };
  const auto parsed = util::utc_usec(std::stoll(at.substr(0, 4)),
                                     static_cast<unsigned>(std::stoul(at.substr(5, 2))),
                                     static_cast<unsigned>(std::stoul(at.substr(8, 2))),
                                     static_cast<unsigned>(std::stoul(at.substr(11, 2))),
                                     static_cast<unsigned>(std::stoul(at.substr(14, 2))),
                                     static_cast<unsigned>(std::stoul(at.substr(17, 2))));
  ASSERT_TRUE(parsed.has_value()) << at;
  EXPECT_GE(*parsed / 1'000'000, seconds(start) - 1) << at;
  EXPECT_LE(*parsed / 1'000'000, seconds(end)) << at;
}

} // namespace
} // namespace doctor
