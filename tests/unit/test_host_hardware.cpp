// SPDX-License-Identifier: MIT
// Family 6, the host (checks/host_hardware.cpp): memory errors counted by EDAC.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace doctor {
namespace {

using test::find_id;
using test::has_id;
using test::run_all;
namespace ids = test::ids;

facts::EdacController controller(const char* name, std::uint64_t ce, std::uint64_t ue) {
  facts::EdacController mc;
  mc.name = name;
  mc.mc_name = "Skylake Socket#0 IMC#0";
  mc.ce_count = ce;
  mc.ue_count = ue;
  return mc;
}

facts::Facts with_edac(std::vector<facts::EdacController> mcs) {
  facts::Facts f = test::machine_without_gpu();
  f.host_hardware.edac = facts::Fact<std::vector<facts::EdacController>>::known(
      std::move(mcs), "dir:/sys/devices/system/edac/mc");
  return f;
}

TEST(check_host_memory_errors, corrected_errors_are_a_warning_naming_the_dimm) {
  auto mc = controller("mc0", 12, 0);
  mc.dimms = {{"dimm0", "CPU_SrcID#0_MC#0_Chan#0_DIMM#0", 0, 0},
              {"dimm2", "CPU_SrcID#0_MC#0_Chan#1_DIMM#0", 12, 0}};
  const auto findings = run_all(with_edac({mc, controller("mc1", 0, 0)}));
  const Finding* f = find_id(findings, ids::k_hardware_host_memory_errors);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_EQ(f->cause_class, CauseClass::hardware_fault);
  EXPECT_NE(f->message.find("12 corrected and 0 uncorrected"), std::string::npos);
  EXPECT_NE(f->message.find("DIMM CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (mc0/dimm2): 12 corrected"),
            std::string::npos)
      << f->message;
  EXPECT_EQ(f->message.find("Chan#0"), std::string::npos); // a clean DIMM is not named
  EXPECT_EQ(f->evidence.size(), 2U);                       // the controller and the DIMM
}

TEST(check_host_memory_errors, uncorrected_errors_are_critical_even_without_dimms) {
  const auto findings = run_all(with_edac({controller("mc0", 0, 2)}));
  const Finding* f = find_id(findings, ids::k_hardware_host_memory_errors);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::critical);
  EXPECT_NE(f->message.find("does not say which DIMM"), std::string::npos);
}

TEST(check_host_memory_errors, clean_or_unknown_counters_give_nothing) {
  EXPECT_FALSE(
      has_id(run_all(with_edac({controller("mc0", 0, 0)})), ids::k_hardware_host_memory_errors));
  EXPECT_FALSE(has_id(run_all(test::machine_without_gpu()), ids::k_hardware_host_memory_errors));
}

facts::DiskHealth disk(const char* device, bool passed, std::map<std::string, std::uint64_t> c) {
  facts::DiskHealth d;
  d.device = device;
  d.type = "sat";
  d.model = "ST4000DM004-2CV104";
  d.passed = facts::Fact<bool>::known(passed, "smartctl:smart_status.passed");
  d.counters = std::move(c);
  return d;
}

facts::Facts with_disks(std::vector<facts::DiskHealth> disks) {
  facts::Facts f = test::machine_without_gpu();
  f.host_hardware.disks = facts::Fact<std::vector<facts::DiskHealth>>::known(
      std::move(disks), "smartctl:/usr/sbin/smartctl");
  return f;
}

TEST(check_disk_health, a_failed_verdict_is_critical_and_counters_are_named) {
  auto findings = run_all(with_disks({disk("/dev/sda", false, {{"reallocated_sectors", 1736}}),
                                      disk("/dev/sdb", true, {{"reallocated_sectors", 0}})}));
  const Finding* f = find_id(findings, ids::k_hardware_disk_failing);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::critical);
  EXPECT_NE(f->message.find("/dev/sda (ST4000DM004-2CV104): the drive's own SMART verdict is "
                            "FAILED; 1736 sectors reallocated"),
            std::string::npos)
      << f->message;
  EXPECT_EQ(std::count_if(findings.begin(),
                          findings.end(),
                          [](const Finding& x) { return x.id == ids::k_hardware_disk_failing; }),
            1);
  const auto nvme = run_all(with_disks({disk("/dev/nvme0", true, {{"media_errors", 3}})}));
  f = find_id(nvme, ids::k_hardware_disk_failing);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->message.find("3 media and data integrity errors"), std::string::npos);
}

TEST(check_disk_health, healthy_disks_give_nothing_and_a_probe_without_smartctl_says_so) {
  EXPECT_FALSE(has_id(run_all(with_disks({disk("/dev/sda", true, {{"percentage_used", 3}})})),
                      ids::k_hardware_disk_failing));
  auto f = test::machine_without_gpu();
  f.host_hardware.disks = facts::Fact<std::vector<facts::DiskHealth>>::unknown(
      "smartctl is not installed (package smartmontools)");
  EXPECT_FALSE(has_id(run_all(f), ids::k_probe_disk_health_unknown)); // no probe ran
  f.probe.ran = true;
  f.collection.live = true;
  const auto probed = run_all(f);
  const Finding* d = find_id(probed, ids::k_probe_disk_health_unknown);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::info);
  EXPECT_NE(d->message.find("smartctl is not installed"), std::string::npos);
}

TEST(check_whea_errors, corrected_errors_warn_and_fatal_ones_are_errors) {
  auto f = test::machine_without_gpu();
  facts::WheaErrors w;
  w.log = "C:/Windows/System32/winevt/Logs/System.evtx";
  w.corrected = 3;
  w.by_event = {{"17", 2}, {"47", 1}};
  f.host_hardware.whea = facts::Fact<facts::WheaErrors>::known(w, "file:" + w.log);
  auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_hardware_whea_errors);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_NE(d->message.find("0 fatal and 3 corrected"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("event 17: 2, event 47: 1"), std::string::npos) << d->message;
  w.fatal = 1;
  f.host_hardware.whea = facts::Fact<facts::WheaErrors>::known(w, "file:" + w.log);
  findings = run_all(f);
  d = find_id(findings, ids::k_hardware_whea_errors);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::error);
  f.host_hardware.whea = facts::Fact<facts::WheaErrors>::known(facts::WheaErrors{}, "file:x");
  EXPECT_FALSE(has_id(run_all(f), ids::k_hardware_whea_errors));
}

facts::Facts with_machine_checks(std::uint64_t corrected,
                                 std::uint64_t uncorrected,
                                 std::uint64_t unclassified) {
  facts::MachineChecks m;
  m.log = "journal";
  m.corrected = corrected;
  m.uncorrected = uncorrected;
  m.unclassified = unclassified;
  m.events = corrected + uncorrected + unclassified;
  m.cpus = {2, 14};
  m.banks = {6};
  m.first = "2024-05-02T13:20:44Z";
  m.last = "2024-05-02T15:47:36Z";
  m.lines = {"mce: [Hardware Error]: CPU 14: Machine Check: 0 Bank 6: cc0000800001009f",
             "mce: [Hardware Error]: TSC 0 \x1b[31m"};
  facts::Facts f = test::machine_without_gpu();
  f.host_hardware.machine_checks =
      facts::Fact<facts::MachineChecks>::known(m, "journal:boot 0b7c1f0e");
  return f;
}

TEST(check_machine_checks, corrected_events_warn_with_the_cpus_banks_times_and_log_lines) {
  const auto findings = run_all(with_machine_checks(3, 0, 1));
  const Finding* f = find_id(findings, ids::k_hardware_machine_check_errors);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_EQ(f->cause_class, CauseClass::hardware_fault);
  EXPECT_NE(f->message.find("4 machine-check event(s) in this boot (3 corrected, 0 uncorrected, "
                            "1 the log does not classify; CPUs 2, 14; bank 6; from "
                            "2024-05-02T13:20:44Z to 2024-05-02T15:47:36Z)"),
            std::string::npos)
      << f->message;
  ASSERT_EQ(f->evidence.size(), 2U); // the log lines, as read (escaped by each report format)
  EXPECT_EQ(f->evidence[0].source, "journal:boot 0b7c1f0e");
  EXPECT_EQ(f->evidence[1].value, "mce: [Hardware Error]: TSC 0 \x1b[31m");
}

TEST(check_machine_checks, an_uncorrected_event_is_critical) {
  const Finding* f = nullptr;
  const auto findings = run_all(with_machine_checks(5, 1, 0));
  f = find_id(findings, ids::k_hardware_machine_check_errors);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::critical);
}

TEST(check_machine_checks, notices_alone_warn_and_say_who_took_the_records) {
  auto facts = with_machine_checks(0, 0, 3);
  facts.host_hardware.machine_checks.value().cpus.clear();
  const auto findings = run_all(facts);
  const Finding* f = find_id(findings, ids::k_hardware_machine_check_errors);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->message.find("mcelog or rasdaemon took the records"), std::string::npos);
}

TEST(check_machine_checks, no_events_or_an_unknown_count_give_nothing) {
  EXPECT_FALSE(has_id(run_all(with_machine_checks(0, 0, 0)), ids::k_hardware_machine_check_errors));
  auto f = test::machine_without_gpu();
  f.host_hardware.machine_checks =
      facts::Fact<facts::MachineChecks>::unknown("no kernel log of this boot could be read");
  EXPECT_FALSE(has_id(run_all(f), ids::k_hardware_machine_check_errors));
}

} // namespace
} // namespace doctor
