// SPDX-License-Identifier: MIT
// smartctl's JSON read defensively, and smartctl run as a child with a time limit
// (collect/smartctl.cpp), against fake smartctl scripts in a fake live tree.
#include "support/temp_tree.hpp"

#include <doctor/collect/smartctl.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace doctor {
namespace {

using collect::disk_health_from_json;
using collect::ScannedDisk;
using collect::smartctl_scan_devices;

constexpr const char* k_scan = R"({"devices": [
  {"name": "/dev/sda", "info_name": "/dev/sda [SAT]", "type": "sat", "protocol": "ATA"},
  {"name": "/dev/nvme0", "type": "nvme"},
  {"name": "-d", "type": "sat"}, {"name": "/dev/sdb", "type": "--help"},
  {"name": "/dev/x y", "type": "sat"}, {"name": 5, "type": "sat"}]})";

TEST(smartctl, the_scan_keeps_only_disks_that_are_safe_arguments) {
  const auto disks = smartctl_scan_devices(k_scan);
  ASSERT_EQ(disks.size(), 2U);
  EXPECT_EQ(disks[0].name, "/dev/sda");
  EXPECT_EQ(disks[0].type, "sat");
  EXPECT_EQ(disks[1].name, "/dev/nvme0");
  for (const char* bad : {"", "not json", "[]", R"({"devices": 5})", "{\"devices\": [[[["}) {
    EXPECT_TRUE(smartctl_scan_devices(bad).empty()) << bad;
  }
}

TEST(smartctl, an_ata_disk_gives_its_verdict_and_failing_media_counters) {
  const auto h = disk_health_from_json(ScannedDisk{"/dev/sda", "sat"},
                                       R"({
    "smartctl": {"exit_status": 8},
    "model_name": "ST4000DM004-2CV104",
    "smart_status": {"passed": false},
    "ata_smart_attributes": {"table": [
      {"id": 1, "name": "Raw_Read_Error_Rate", "raw": {"value": 55054600}},
      {"id": 5, "name": "Reallocated_Sector_Ct", "raw": {"value": 1736}},
      {"id": 197, "name": "Current_Pending_Sector", "raw": {"value": 16}},
      {"id": 198, "name": "Offline_Uncorrectable", "raw": {"value": -1}}]}})",
                                       8);
  EXPECT_EQ(h.model, "ST4000DM004-2CV104");
  ASSERT_TRUE(h.passed);
  EXPECT_FALSE(*h.passed);
  EXPECT_EQ(h.exit_status, 8);
  EXPECT_EQ(h.counters.at("reallocated_sectors"), 1736U);
  EXPECT_EQ(h.counters.at("pending_sectors"), 16U);
  EXPECT_EQ(h.counters.count("offline_uncorrectable"), 0U); // -1 is no count
  EXPECT_EQ(h.counters.size(), 2U);
}

TEST(smartctl, an_nvme_disk_and_a_refusal_and_garbage) {
  auto h = disk_health_from_json(ScannedDisk{"/dev/nvme0", "nvme"},
                                 R"({
    "model_name": "Samsung SSD 980 PRO 2TB", "smart_status": {"passed": true},
    "nvme_smart_health_information_log": {"critical_warning": 0, "media_errors": 3,
                                          "percentage_used": 3, "temperature": 41}})",
                                 0);
  EXPECT_TRUE(h.passed.value_or(false));
  EXPECT_EQ(h.counters.at("media_errors"), 3U);
  EXPECT_EQ(h.counters.count("temperature"), 0U);
  h = disk_health_from_json(ScannedDisk{"/dev/sda", "sat"},
                            R"({"smartctl": {"exit_status": 2,
    "messages": [{"string": "Smartctl open device: /dev/sda failed: Permission denied"}]}})",
                            2);
  ASSERT_FALSE(h.passed);
  EXPECT_NE(h.passed.reason().find("Permission denied"), std::string::npos);
  ASSERT_EQ(h.messages.size(), 1U);
  h = disk_health_from_json(ScannedDisk{"/dev/sda", "sat"}, "\x01garbage", 1);
  ASSERT_FALSE(h.passed);
  EXPECT_NE(h.passed.reason().find("the command line did not parse"), std::string::npos);
  h = disk_health_from_json(ScannedDisk{"/dev/sda", "sat"},
                            "{\"model_name\": \"\\u001b[31mDISK\", \"smart_status\": 1}",
                            0);
  EXPECT_EQ(h.model.find('\x1b'), std::string::npos);
  EXPECT_FALSE(h.passed);
}

// A live tree (the doctor runs what it finds there) whose /usr/sbin/smartctl is `script`.
void fake_smartctl(const test::TempDir& t, const std::string& script) {
  t.write("/usr/sbin/smartctl", "#!/bin/sh\n" + script);
  ::chmod(t.at("/usr/sbin/smartctl").c_str(), 0755);
}

platform::SysRoot live(const test::TempDir& t) {
  return platform::SysRoot(t.path(), platform::Environment(), platform::OsFamily::linux, true);
}

TEST(smartctl, each_disk_is_asked_through_the_installed_smartctl) {
  test::TempDir t;
  fake_smartctl(t,
                "case \"$1\" in --scan) echo '{\"devices\": [{\"name\": \"/dev/sda\", \"type\": "
                "\"sat\"}]}';;\n"
                "*) echo \"{\\\"model_name\\\": \\\"$8 $9\\\", \\\"smart_status\\\": "
                "{\\\"passed\\\": true}}\"; exit 0;;\nesac\n");
  facts::Facts f;
  collect::collect_disk_health(live(t), std::chrono::seconds(20), f);
  ASSERT_TRUE(f.host_hardware.disks) << f.host_hardware.disks.reason();
  ASSERT_EQ(f.host_hardware.disks->size(), 1U);
  const auto& d = (*f.host_hardware.disks)[0];
  EXPECT_EQ(d.device, "/dev/sda");
  EXPECT_EQ(d.model, "sat /dev/sda"); // the -d type and the device were its last arguments
  EXPECT_TRUE(d.passed.value_or(false));
}

TEST(smartctl, a_hung_disk_is_killed_and_said) {
  test::TempDir t;
  fake_smartctl(t,
                "case \"$1\" in --scan) echo '{\"devices\": [{\"name\": \"/dev/sda\", \"type\": "
                "\"sat\"}]}';;\n*) sleep 300;;\nesac\n");
  facts::Facts f;
  collect::collect_disk_health(live(t), std::chrono::milliseconds(500), f);
  ASSERT_TRUE(f.host_hardware.disks);
  const auto& d = (*f.host_hardware.disks)[0];
  ASSERT_FALSE(d.passed);
  EXPECT_NE(d.passed.reason().find("was killed"), std::string::npos) << d.passed.reason();
}

TEST(smartctl, without_smartctl_or_on_a_sysroot_it_says_why) {
  test::TempDir t;
  facts::Facts f;
  collect::collect_disk_health(live(t), std::chrono::seconds(1), f);
  ASSERT_FALSE(f.host_hardware.disks);
  EXPECT_NE(f.host_hardware.disks.reason().find("smartctl is not installed"), std::string::npos);
  collect::collect_disk_health(test::fake_root(t.path()), std::chrono::seconds(1), f);
  EXPECT_NE(f.host_hardware.disks.reason().find("--sysroot"), std::string::npos);
}

} // namespace
} // namespace doctor
