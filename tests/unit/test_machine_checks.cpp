// SPDX-License-Identifier: MIT
// Linux machine checks (collect/machine_checks.cpp): counted from real kernel logs (fixtures in
// tests/unit/data/crash/kernel, origins in its README.md), and the sources tried in order with
// stand-in readers for the journal and /dev/kmsg.
#include "support/temp_tree.hpp"
#include "support/test_paths.hpp"

#include <doctor/collect/machine_checks.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace doctor {
namespace {

using Ids = std::vector<std::uint64_t>;

facts::MachineChecks count_fixture(const std::string& name) {
  std::ifstream in(test::test_data_dir() + "/crash/kernel/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  const auto lines = formats::read_kernel_log(text.str(), name);
  return collect::count_machine_checks(lines, name);
}

TEST(machine_checks, corrected_records_are_counted_with_their_cpus_and_banks) {
  // home-assistant/operating-system #2989: four records, every MCi_STATUS with UC clear.
  const auto m = count_fixture("mce_corrected_cpus.log");
  EXPECT_EQ(m.events, 4U);
  EXPECT_EQ(m.corrected, 4U);
  EXPECT_EQ(m.uncorrected, 0U);
  EXPECT_EQ(m.unclassified, 0U);
  EXPECT_EQ(m.cpus, (Ids{1, 2, 3}));
  EXPECT_EQ(m.banks, (Ids{6}));
  EXPECT_EQ(m.first, "Dec 13 13:46:08");
  EXPECT_EQ(m.last, "Dec 13 13:46:09");
  EXPECT_EQ(m.at_boot, 0U); // syslog lines without the time since boot
  ASSERT_FALSE(m.lines.empty());
  EXPECT_EQ(m.lines.front(),
            "mce: [Hardware Error]: CPU 2: Machine Check: 0 Bank 6: cc59dec000041152");
  EXPECT_EQ(m.lines.size(), 11U); // each record with its TSC and PROCESSOR lines
}

TEST(machine_checks, an_uncorrected_record_at_boot_and_a_notice_of_its_own) {
  // openstreetmap/operations #300: a notice whose record EDAC printed in its own words (an
  // unclassified event); andikleen/mcelog #70: a record with UC and PCC set 0.064 s after boot,
  // with its notice just before it (the same event). The EDAC lines are no machine checks.
  const auto m = count_fixture("syslog_mce_edac.log");
  EXPECT_EQ(m.events, 2U);
  EXPECT_EQ(m.uncorrected, 1U);
  EXPECT_EQ(m.corrected, 0U);
  EXPECT_EQ(m.unclassified, 1U);
  EXPECT_EQ(m.at_boot, 1U); // the record of the boot-time poll
  EXPECT_EQ(m.cpus, (Ids{0}));
  EXPECT_EQ(m.banks, (Ids{4}));
  EXPECT_EQ(m.first, "May  7 06:45:12 (21584690.529862 s after boot)");
  EXPECT_EQ(m.last, "Sep 16 19:51:15 (0.064265 s after boot)");
}

TEST(machine_checks, notices_without_records_are_each_one_event) {
  // andikleen/mcelog #116: rasdaemon took the records; the log keeps only the notices.
  const auto m = count_fixture("mce_notices_only.log");
  EXPECT_EQ(m.events, 3U);
  EXPECT_EQ(m.unclassified, 3U);
  EXPECT_TRUE(m.cpus.empty());
  EXPECT_EQ(m.first, "202072.518835 s after boot");
  EXPECT_EQ(m.last, "202160.831562 s after boot");
}

TEST(machine_checks, a_record_whose_status_is_not_valid_is_unclassified) {
  // mchehab/rasdaemon #155: the notice and a record with status 0 (VAL clear) are one event.
  const auto m = count_fixture("mce_invalid_status.log");
  EXPECT_EQ(m.events, 1U);
  EXPECT_EQ(m.unclassified, 1U);
  EXPECT_EQ(m.corrected + m.uncorrected, 0U);
  EXPECT_EQ(m.cpus, (Ids{0}));
  EXPECT_EQ(m.banks, (Ids{9}));
  EXPECT_EQ(m.lines_read, 5U);
}

TEST(machine_checks, a_log_without_machine_checks_counts_none) {
  const auto lines = formats::read_kernel_log(
      "[    0.043437] mce: CPU supports 7 MCE banks\n"
      "[  712.100000] mce: CPU3: Core temperature above threshold, cpu clock throttled\n",
      "test");
  const auto m = collect::count_machine_checks(lines, "test");
  EXPECT_EQ(m.events, 0U);
  EXPECT_TRUE(m.first.empty());
  EXPECT_TRUE(m.lines.empty());
}

constexpr const char* k_this_boot = "0b7c1f0e2d4a4e6f9a1b2c3d4e5f6a7b";
constexpr const char* k_last_boot = "f1e2d3c4b5a697881726354453627180";

formats::KernelLine kernel_line(const char* boot, std::int64_t uptime_usec, std::string text) {
  formats::KernelLine l;
  l.when.boot = boot;
  l.when.uptime_usec = uptime_usec;
  l.when.utc_usec = std::int64_t{1714656044} * 1000000 + uptime_usec;
  l.text = std::move(text);
  return l;
}

// A journal with an uncorrected machine check in the boot before and a corrected one in this.
collect::JournalRead two_boots() {
  collect::JournalRead j;
  j.lines = {
      kernel_line(k_last_boot, 9000000, "mce: [Hardware Error]: Machine check events logged"),
      kernel_line(k_last_boot,
                  9000010,
                  "mce: [Hardware Error]: CPU 14: Machine Check: 0 Bank 7: fa00000000400405"),
      kernel_line(k_this_boot, 1000, "Linux version 6.8.0-45-generic"),
      kernel_line(k_this_boot,
                  8812771508,
                  "mce: [Hardware Error]: CPU 2: Machine Check: 0 Bank 6: cc59dec000041152"),
  };
  j.boots = {k_last_boot, k_this_boot};
  return j;
}

// Readers that answer with `journal` and `kmsg` and count their calls.
struct Readers {
  Expected<collect::JournalRead> journal = make_error(ErrorCode::not_found, "no journal");
  Expected<std::string> kmsg = make_error(ErrorCode::permission_denied, "Operation not permitted");
  std::vector<std::vector<std::string>> journal_calls;
  int kmsg_calls = 0;
  collect::KernelLogReaders get() {
    return {[this](const platform::SysRoot&, const std::vector<std::string>& dirs) {
              journal_calls.push_back(dirs);
              return journal;
            },
            [this] {
              ++kmsg_calls;
              return kmsg;
            }};
  }
};

// A live Linux machine whose /proc and /var/log are the tree `t`.
platform::SysRoot live(const test::TempDir& t) {
  return platform::SysRoot(t.path(), platform::Environment(), platform::OsFamily::linux, true);
}

TEST(machine_checks, the_live_machine_counts_this_boot_of_its_journal) {
  test::TempDir t;
  t.write("/proc/sys/kernel/random/boot_id", "0b7c1f0e-2d4a-4e6f-9a1b-2c3d4e5f6a7b\n");
  test::mkdirs(t.at("/var/log/journal"));
  Readers r;
  r.journal = two_boots();
  facts::Facts f;
  collect::collect_machine_checks(live(t), r.get(), f);
  const auto& m = f.host_hardware.machine_checks;
  ASSERT_TRUE(m) << m.reason();
  EXPECT_EQ(m.source(), std::string("journal:boot ") + k_this_boot);
  EXPECT_EQ(m->boot, k_this_boot);
  EXPECT_EQ(m->lines_read, 2U); // this boot's lines only
  EXPECT_EQ(m->events, 1U);     // the uncorrected one of the boot before is not counted
  EXPECT_EQ(m->corrected, 1U);
  EXPECT_EQ(m->first, "2024-05-02T15:47:36.771508Z (8812.771508 s after boot)");
  ASSERT_EQ(r.journal_calls.size(), 1U);
  EXPECT_TRUE(r.journal_calls[0].empty()); // the live machine's own journal
  EXPECT_EQ(r.kmsg_calls, 0);
}

TEST(machine_checks, without_this_boot_in_the_journal_the_live_machine_reads_kmsg) {
  test::TempDir t;
  t.write("/proc/sys/kernel/random/boot_id", "aaaaaaaa-2d4a-4e6f-9a1b-2c3d4e5f6a7b\n");
  test::mkdirs(t.at("/run/log/journal"));
  Readers r;
  r.journal = two_boots(); // readable, but holds neither boot of this id
  r.kmsg = std::string(
      "4,1201,8812771502,-;mce: [Hardware Error]: Machine check events logged\n"
      "4,1202,8812771508,-;mce: [Hardware Error]: CPU 14: Machine Check: 0 "
      "Bank 7: cc0000800001009f\n");
  facts::Facts f;
  collect::collect_machine_checks(live(t), r.get(), f);
  const auto& m = f.host_hardware.machine_checks;
  ASSERT_TRUE(m) << m.reason();
  EXPECT_EQ(m.source(), "file:/dev/kmsg");
  EXPECT_EQ(m->events, 1U); // the notice is the record's
  EXPECT_EQ(m->uncorrected, 0U);
  EXPECT_EQ(m->corrected, 1U); // 0xcc…: VAL set, UC clear
  EXPECT_EQ(m->cpus, (Ids{14}));
  EXPECT_EQ(r.kmsg_calls, 1);
}

TEST(machine_checks, no_readable_log_is_unknown_with_every_reason) {
  test::TempDir t;
  t.write("/proc/sys/kernel/random/boot_id", "0b7c1f0e-2d4a-4e6f-9a1b-2c3d4e5f6a7b\n");
  test::mkdirs(t.at("/var/log/journal"));
  Readers r;
  r.journal = collect::JournalRead{}; // a user outside the journal's groups sees no kernel line
  facts::Facts f;
  collect::collect_machine_checks(live(t), r.get(), f);
  const auto& m = f.host_hardware.machine_checks;
  ASSERT_FALSE(m);
  EXPECT_NE(m.reason().find("no kernel log of this boot could be read"), std::string::npos);
  EXPECT_NE(m.reason().find("journal: no kernel message of this boot"), std::string::npos)
      << m.reason();
  EXPECT_NE(m.reason().find("/dev/kmsg: Operation not permitted (kernel.dmesg_restrict is set: "
                            "run as root)"),
            std::string::npos)
      << m.reason();
  EXPECT_NE(m.reason().find("no /sys/devices/system/machinecheck"), std::string::npos);
}

TEST(machine_checks, an_examined_tree_counts_the_newest_boot_of_its_journal_and_never_kmsg) {
  test::TempDir t;
  test::mkdirs(t.at("/var/log/journal"));
  Readers r;
  r.journal = two_boots();
  r.kmsg = std::string("4,1,1,-;mce: [Hardware Error]: Machine check events logged\n");
  facts::Facts f;
  collect::collect_machine_checks(test::fake_root(t.path()), r.get(), f);
  const auto& m = f.host_hardware.machine_checks;
  ASSERT_TRUE(m) << m.reason();
  EXPECT_EQ(m->boot, k_this_boot);
  EXPECT_EQ(m->log, "/var/log/journal");
  EXPECT_EQ(m->events, 1U);
  ASSERT_EQ(r.journal_calls.size(), 1U);
  EXPECT_EQ(r.journal_calls[0], (std::vector<std::string>{"/var/log/journal"}));
  EXPECT_EQ(r.kmsg_calls, 0);

  test::TempDir empty;
  collect::collect_machine_checks(test::fake_root(empty.path()), r.get(), f);
  ASSERT_FALSE(f.host_hardware.machine_checks);
  EXPECT_NE(f.host_hardware.machine_checks.reason().find(
                "no kernel log of the examined system could be read: journal: no "
                "/var/log/journal or /run/log/journal"),
            std::string::npos)
      << f.host_hardware.machine_checks.reason();
  EXPECT_EQ(r.kmsg_calls, 0);
}

TEST(machine_checks, windows_is_unknown_and_names_whea) {
  test::TempDir t;
  facts::Facts f;
  collect::collect_machine_checks(
      platform::SysRoot(t.path(), platform::Environment(), platform::OsFamily::windows, false),
      Readers().get(),
      f);
  ASSERT_FALSE(f.host_hardware.machine_checks);
  EXPECT_NE(f.host_hardware.machine_checks.reason().find("WHEA"), std::string::npos);
}

} // namespace
} // namespace doctor
