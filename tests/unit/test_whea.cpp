// SPDX-License-Identifier: MIT
// Windows' hardware errors (collect/whea.cpp): WHEA-Logger events counted by level, and the
// System log of a Windows disk tree read through the SysRoot.
#include "support/shared_testdata.hpp"
#include "support/temp_tree.hpp"
#include "support/test_paths.hpp"

#include <doctor/collect/whea.hpp>

#include <gtest/gtest.h>

#include <filesystem>

namespace doctor {
namespace {

formats::EventRecord event(const char* provider, std::uint32_t id, int level) {
  formats::EventRecord r;
  r.channel = "System";
  r.provider = provider;
  r.event_id = id;
  r.level = level;
  return r;
}

TEST(whea, events_are_counted_fatal_or_corrected_by_their_level) {
  const std::vector<formats::EventRecord> records = {
      event("Microsoft-Windows-WHEA-Logger", 17, 3), // corrected PCIe
      event("Microsoft-Windows-WHEA-Logger", 17, 3),
      event("Microsoft-Windows-WHEA-Logger", 47, 3), // corrected memory
      event("Microsoft-Windows-WHEA-Logger", 18, 2), // fatal machine check
      event("Microsoft-Windows-WHEA-Logger", 3, 4),  // informational: no error
      event("Microsoft-Windows-Kernel-Power", 41, 1),
  };
  const auto w = collect::count_whea(records, "System.evtx");
  EXPECT_EQ(w.corrected, 3U);
  EXPECT_EQ(w.fatal, 1U);
  EXPECT_EQ(w.by_event.at("17"), 2U);
  EXPECT_EQ(w.by_event.at("18"), 1U);
  EXPECT_EQ(w.by_event.count("3"), 0U);
  EXPECT_EQ(w.by_event.count("41"), 0U);
}

platform::SysRoot windows_disk(const test::TempDir& t) {
  return platform::SysRoot(t.path(), platform::Environment(), platform::OsFamily::windows, false);
}

TEST(whea, the_system_log_of_a_windows_disk_is_read) {
  const std::string sample = doctor::test::shared_testdata_dir() + "/windows-evtx/system.evtx";
  if (!std::filesystem::exists(sample)) {
    DOCTOR_MISSING_TESTDATA(sample);
  }
  test::TempDir t;
  test::mkdirs(t.at("/Windows/System32/winevt/Logs"));
  std::filesystem::copy_file(sample, t.at("/Windows/System32/winevt/Logs/System.evtx"));
  facts::Facts f;
  collect::collect_whea(windows_disk(t), f);
  ASSERT_TRUE(f.host_hardware.whea) << f.host_hardware.whea.reason();
  // A real System log (service starts, shutdowns, Kernel-Power) without hardware errors.
  EXPECT_EQ(f.host_hardware.whea->fatal, 0U);
  EXPECT_EQ(f.host_hardware.whea->corrected, 0U);
  EXPECT_EQ(f.host_hardware.whea.source(), "file:/Windows/System32/winevt/Logs/System.evtx");
}

TEST(whea, a_missing_or_damaged_log_and_linux_are_unknown_with_the_reason) {
  test::TempDir t;
  facts::Facts f;
  collect::collect_whea(windows_disk(t), f);
  ASSERT_FALSE(f.host_hardware.whea);
  EXPECT_NE(f.host_hardware.whea.reason().find("System.evtx cannot be read"), std::string::npos);
  t.write("/Windows/System32/winevt/Logs/System.evtx", "not an event log");
  collect::collect_whea(windows_disk(t), f);
  EXPECT_NE(f.host_hardware.whea.reason().find("is not an event log"), std::string::npos);
  collect::collect_whea(test::fake_root(t.path()), f);
  EXPECT_NE(f.host_hardware.whea.reason().find("Windows' own"), std::string::npos);
}

} // namespace
} // namespace doctor
