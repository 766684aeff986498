// SPDX-License-Identifier: MIT
// The offline registry of a Windows disk over real hive files (built by hivexregedit): the hive
// map (SYSTEM, SOFTWARE, the newest NTUSER.DAT), CurrentControlSet, names in any case, every
// value type, and hostile hive files that must give a clear error, never a hang or a crash.
#include "support/hive_fixture.hpp"

#include <doctor/platform/registry_hive.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h> // mkfifo
#include <sys/time.h> // utimes

#include <string>
#include <vector>

namespace doctor::platform {
namespace {

using test::TempDir;

constexpr const char* k_system_reg = R"reg([\Select]
"Current"=dword:00000002

[\ControlSet001\Control\GraphicsDrivers]
"TdrDelay"=dword:00000002

[\ControlSet002\Control\GraphicsDrivers]
"TdrDelay"=dword:0000003c
"TdrLevel"=dword:00000000
"Text"="plain"
"Expand"=hex(2):25,00,50,00,41,00,54,00,48,00,25,00,00,00
"Multi"=hex(7):61,00,00,00,e9,00,74,00,00,00,00,00
"Big"=hex(b):08,07,06,05,04,03,02,01
"Blob"=hex:de,ad,be,ef
"Chinese"="张伟"
)reg";

// A Windows disk: Windows/System32 and, when given, its SYSTEM and SOFTWARE hives.
void make_disk(const TempDir& tmp, const char* system_reg, const char* software_reg = nullptr) {
  test::mkdirs(tmp.at("Windows/System32/config"));
  if (system_reg != nullptr) {
    ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SYSTEM"), system_reg));
  }
  if (software_reg != nullptr) {
    ASSERT_TRUE(test::make_hive(tmp.at("Windows/System32/config/SOFTWARE"), software_reg));
  }
}

TEST(RegistryHive, ReadsEveryValueTypeThroughCurrentControlSet) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  make_disk(tmp, k_system_reg);
  const SysRoot root = open_tree_root(tmp.path(), Environment());
  ASSERT_EQ(root.os(), OsFamily::windows);
  const Registry* r = root.registry();
  ASSERT_NE(r, nullptr) << root.registry_error();
  const auto hklm = RegistryRoot::local_machine;
  // Select\Current is 2: CurrentControlSet is ControlSet002, not the first one.
  constexpr const char* k_key = "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers";
  auto delay = r->value(hklm, k_key, "TdrDelay");
  ASSERT_TRUE(delay) << delay.error().message;
  EXPECT_EQ(delay->type, RegistryValue::Type::dword);
  EXPECT_EQ(delay->number, 60U);
  EXPECT_EQ(r->value(hklm, k_key, "Text")->text, "plain");
  EXPECT_EQ(r->value(hklm, k_key, "Expand")->type, RegistryValue::Type::expand_string);
  EXPECT_EQ(r->value(hklm, k_key, "Expand")->text, "%PATH%");
  EXPECT_EQ(r->value(hklm, k_key, "Multi")->strings, (std::vector<std::string>{"a", "\xC3\xA9t"}));
  EXPECT_EQ(r->value(hklm, k_key, "Big")->type, RegistryValue::Type::qword);
  EXPECT_EQ(r->value(hklm, k_key, "Big")->number, 0x0102030405060708U);
  EXPECT_EQ(r->value(hklm, k_key, "Blob")->type, RegistryValue::Type::binary);
  EXPECT_EQ(r->value(hklm, k_key, "Blob")->data, "\xde\xad\xbe\xef");
  EXPECT_EQ(r->value(hklm, k_key, "Chinese")->text, "张伟");
  EXPECT_EQ(r->source(hklm, k_key),
            "hive:/Windows/System32/config/SYSTEM:HKLM\\SYSTEM\\ControlSet002\\Control\\"
            "GraphicsDrivers");
}

TEST(RegistryHive, NamesCompareInAnyCase) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  test::mkdirs(tmp.at("WINDOWS/system32/CONFIG"));
  ASSERT_TRUE(test::make_hive(tmp.at("WINDOWS/system32/CONFIG/system"), k_system_reg));
  const SysRoot root = open_tree_root(tmp.path(), Environment());
  ASSERT_EQ(root.os(), OsFamily::windows);
  ASSERT_NE(root.registry(), nullptr) << root.registry_error();
  auto level = root.registry()->value(RegistryRoot::local_machine,
                                      "system\\currentcontrolset\\CONTROL\\graphicsdrivers",
                                      "TDRLEVEL");
  ASSERT_TRUE(level) << level.error().message;
  EXPECT_EQ(level->number, 0U);
  auto missing = root.registry()->value(RegistryRoot::local_machine,
                                        "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers",
                                        "TdrDdiDelay");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  auto subkeys = root.registry()->subkeys(RegistryRoot::local_machine, "SYSTEM");
  ASSERT_TRUE(subkeys);
  EXPECT_EQ(*subkeys, (std::vector<std::string>{"ControlSet001", "ControlSet002", "Select"}));
}

TEST(RegistryHive, CurrentUserIsTheNewestProfile) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  make_disk(tmp, k_system_reg);
  ASSERT_TRUE(
      test::make_hive(tmp.at("Users/old/NTUSER.DAT"), "[\\Environment]\n\"Path\"=\"old\"\n"));
  ASSERT_TRUE(
      test::make_hive(tmp.at("Users/bob/NTUSER.DAT"), "[\\Environment]\n\"Path\"=\"bob\"\n"));
  ASSERT_TRUE(test::make_hive(tmp.at("Users/Default/NTUSER.DAT"),
                              "[\\Environment]\n\"Path\"=\"template\"\n"));
  const struct timeval old_times[2] = {{1000000, 0}, {1000000, 0}};
  ASSERT_EQ(::utimes(tmp.at("Users/old/NTUSER.DAT").c_str(), old_times), 0);
  const struct timeval newer[2] = {{2000000, 0}, {2000000, 0}};
  ASSERT_EQ(::utimes(tmp.at("Users/bob/NTUSER.DAT").c_str(), newer), 0);
  const SysRoot root = open_tree_root(tmp.path(), Environment());
  ASSERT_NE(root.registry(), nullptr);
  auto path = root.registry()->value(RegistryRoot::current_user, "Environment", "Path");
  ASSERT_TRUE(path) << path.error().message;
  EXPECT_EQ(path->text, "bob");
  EXPECT_EQ(root.registry()->source(RegistryRoot::current_user, "Environment"),
            "hive:/Users/bob/NTUSER.DAT:HKCU\\Environment");
}

// Each hostile hive fails alone and says why; the other hives still answer.
struct Hostile {
  const char* name;
  void (*plant)(const TempDir&);
  ErrorCode code;
  const char* message;
};

void plant_fifo(const TempDir& tmp) {
  ASSERT_EQ(::mkfifo(tmp.at("Windows/System32/config/SYSTEM").c_str(), 0600), 0);
}
void plant_truncated(const TempDir& tmp) {
  ASSERT_TRUE(test::make_hive(tmp.at("full"), k_system_reg));
  auto bytes = platform::read_file(tmp.at("full"), 1 << 20);
  ASSERT_TRUE(bytes);
  test::write_file(tmp.at("Windows/System32/config/SYSTEM"),
                   bytes->substr(0, bytes->size() - 4096));
}
void plant_text(const TempDir& tmp) {
  tmp.write("Windows/System32/config/SYSTEM", "Windows Registry Editor Version 5.00\r\n");
}
void plant_header_only(const TempDir& tmp) {
  tmp.write("Windows/System32/config/SYSTEM", std::string("regf") + std::string(100, '\0'));
}
void plant_damaged(const TempDir& tmp) {
  ASSERT_TRUE(test::make_hive(tmp.at("full"), k_system_reg));
  auto bytes = platform::read_file(tmp.at("full"), 1 << 20);
  ASSERT_TRUE(bytes);
  std::string damaged = *bytes;
  damaged[508] = static_cast<char>(damaged[508] ^ 0x5a); // the base block's checksum
  test::write_file(tmp.at("Windows/System32/config/SYSTEM"), damaged);
}
void plant_huge(const TempDir& tmp) {
  tmp.write("Windows/System32/config/SYSTEM", "regf");
  std::filesystem::resize_file(tmp.at("Windows/System32/config/SYSTEM"), k_max_hive_bytes + 1);
}
void plant_directory(const TempDir& tmp) {
  test::mkdirs(tmp.at("Windows/System32/config/SYSTEM"));
}

class HostileHive : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileHive, FailsAloneWithAClearError) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  make_disk(
      tmp, nullptr, "[\\Microsoft\\Windows NT\\CurrentVersion]\n\"CurrentBuild\"=\"22631\"\n");
  GetParam().plant(tmp);
  const SysRoot root = open_tree_root(tmp.path(), Environment());
  ASSERT_NE(root.registry(), nullptr);
  auto v = root.registry()->value(RegistryRoot::local_machine,
                                  "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers",
                                  "TdrDelay");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, GetParam().code) << v.error().message;
  EXPECT_NE(v.error().message.find("hive /Windows/System32/config/SYSTEM: "), std::string::npos)
      << v.error().message;
  EXPECT_NE(v.error().message.find(GetParam().message), std::string::npos) << v.error().message;
  auto build = root.registry()->value(RegistryRoot::local_machine,
                                      "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion",
                                      "CurrentBuild");
  ASSERT_TRUE(build) << build.error().message;
  EXPECT_EQ(build->text, "22631");
}

INSTANTIATE_TEST_SUITE_P(
    Hives,
    HostileHive,
    ::testing::Values(
        Hostile{"fifo", plant_fifo, ErrorCode::not_regular, "is a FIFO, not a regular file"},
        Hostile{"truncated", plant_truncated, ErrorCode::parse, "truncated: the header declares"},
        Hostile{"text", plant_text, ErrorCode::parse, "not a registry hive"},
        Hostile{"header_only", plant_header_only, ErrorCode::parse, "truncated: 104 bytes"},
        Hostile{"damaged", plant_damaged, ErrorCode::parse, "libhivex rejects it as damaged"},
        Hostile{"huge", plant_huge, ErrorCode::too_large, "more than the 1073741824"},
        Hostile{"directory", plant_directory, ErrorCode::not_regular, "is a directory"}),
    [](const ::testing::TestParamInfo<Hostile>& p) { return std::string(p.param.name); });

TEST(RegistryHive, MissingHivesAreNoMissingKeys) {
  TempDir tmp;
  test::mkdirs(tmp.at("Windows/System32"));
  const SysRoot root = open_tree_root(tmp.path(), Environment());
  ASSERT_EQ(root.os(), OsFamily::windows);
  ASSERT_NE(root.registry(), nullptr);
  auto v = root.registry()->value(RegistryRoot::local_machine, "SOFTWARE\\Python", "");
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().code, ErrorCode::not_found); // "no such key" would read as "not installed"
  EXPECT_NE(v.error().message.find("no HKLM\\SOFTWARE hive"), std::string::npos)
      << v.error().message;
  auto user = root.registry()->value(RegistryRoot::current_user, "Environment", "Path");
  ASSERT_FALSE(user);
  EXPECT_NE(user.error().message.find("no HKCU hive"), std::string::npos) << user.error().message;
}

TEST(RegistryHive, WithoutSelectThereIsNoCurrentControlSet) {
  REQUIRE_HIVEXREGEDIT();
  TempDir tmp;
  make_disk(tmp, "[\\ControlSet001\\Control]\n\"X\"=dword:00000001\n");
  const SysRoot root = open_tree_root(tmp.path(), Environment());
  ASSERT_NE(root.registry(), nullptr);
  auto v = root.registry()->value(
      RegistryRoot::local_machine, "SYSTEM\\CurrentControlSet\\Control", "X");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, ErrorCode::parse);
  EXPECT_NE(v.error().message.find("no CurrentControlSet"), std::string::npos) << v.error().message;
  // The control sets themselves still answer.
  EXPECT_TRUE(
      root.registry()->value(RegistryRoot::local_machine, "SYSTEM\\ControlSet001\\Control", "X"));
}

TEST(RegistryHive, ALinuxTreeHasNoRegistry) {
  TempDir tmp;
  tmp.write("etc/os-release", "ID=debian\n");
  const SysRoot root = open_tree_root(tmp.path(), Environment());
  EXPECT_EQ(root.os(), OsFamily::linux);
  EXPECT_EQ(root.registry(), nullptr);
}

} // namespace
} // namespace doctor::platform
