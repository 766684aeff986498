// SPDX-License-Identifier: MIT
// Crash evidence collection over fake machine trees: what each examined OS keeps is found, and
// every read stays inside the examined root. An absolute link in an image's /var/log names the
// image's own file at that path: the host's file there must never be read.
#include "support/builtin_kb.hpp"
#include "support/temp_tree.hpp"

#include <doctor/collect/crash_evidence.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace doctor::collect {
namespace {

using test::TempDir;

// Real-shaped Xid lines (research anchors-crash-forensics.md 7.1 rows 21 and 3): the host's
// copy names a GPU the image's copy does not, so a leak shows as that GPU.
constexpr const char* k_host_line =
    "Jul  1 09:00:00 host kernel: [  100.000000] NVRM: Xid (PCI:0000:de:00): 79, "
    "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n";
constexpr const char* k_image_line =
    "Aug 30 11:43:09 image kernel: [  200.000000] NVRM: Xid (PCI:0000:cb:00): 13, "
    "pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): "
    "Illegal Instruction Parameter\n";

// The PCI addresses of the observations collected.
std::vector<std::string> gpus(const crash::Collected& c) {
  std::vector<std::string> out;
  for (const crash::Observation& o : c.observations) {
    out.push_back(o.field("pci") != nullptr ? *o.field("pci") : "-");
  }
  return out;
}

const crash::SourceStatus* source(const crash::Collected& c, const std::string& name) {
  for (const crash::SourceStatus& s : c.sources) {
    if (s.source == name) {
      return &s;
    }
  }
  return nullptr;
}

// A host directory outside the examined tree, and the tree itself.
struct Machine {
  TempDir dir;
  std::filesystem::path host = dir.at("host");
  std::filesystem::path image = dir.at("image");
  platform::SysRoot root() const { return test::fake_root(image); }
  // The image's own file at the inner path that equals the host path `host_file`.
  std::filesystem::path in_image(const std::filesystem::path& host_file) const {
    return image / host_file.relative_path();
  }
};

TEST(CrashEvidence, AbsoluteLinkInVarLogIsFollowedInsideTheImage) {
  Machine m;
  const auto host_log = m.host / "kern.log";
  test::write_file(host_log, k_host_line);
  test::write_file(m.in_image(host_log), k_image_line);
  test::make_symlink(host_log.string(), m.image / "var/log/kern.log");

  const crash::Collected c = collect_machine(m.root(), test::builtin_kb());
  EXPECT_EQ(gpus(c), std::vector<std::string>{"0000:cb:00"});
  const crash::SourceStatus* s = source(c, "/var/log/kern.log");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->status, "read");
  EXPECT_EQ(s->events, 1U);
  ASSERT_EQ(c.observations.size(), 1U);
  EXPECT_EQ(c.observations[0].origin.source, "/var/log/kern.log");
}

TEST(CrashEvidence, LinkToAHostFileTheImageLacksIsUnreadable) {
  Machine m;
  test::mkdirs(m.image / "var/log");
  test::make_symlink("/etc/hostname", m.image / "var/log/kern.log");
  const crash::Collected c = collect_machine(m.root(), test::builtin_kb());
  EXPECT_TRUE(c.observations.empty());
  const crash::SourceStatus* s = source(c, "/var/log/kern.log");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->status, "unreadable");
  EXPECT_NE(s->detail.find("/etc"), std::string::npos) << s->detail;
  EXPECT_EQ(s->detail.find(m.image.string()), std::string::npos) << "inner paths only";
}

TEST(CrashEvidence, VarLogItselfALinkStaysInTheImage) {
  Machine m;
  test::write_file(m.host / "log/kern.log", k_host_line);
  test::write_file(m.in_image(m.host / "log/kern.log"), k_image_line);
  test::make_symlink((m.host / "log").string(), m.image / "var/log");
  const crash::Collected c = collect_machine(m.root(), test::builtin_kb());
  EXPECT_EQ(gpus(c), std::vector<std::string>{"0000:cb:00"});
}

TEST(CrashEvidence, KdumpDirectoryLinkStaysInTheImage) {
  Machine m;
  test::write_file(m.host / "crash/202501251034/dmesg.202501251034", k_host_line);
  test::write_file(m.in_image(m.host / "crash/202501251034/dmesg.202501251034"), k_image_line);
  test::make_symlink((m.host / "crash").string(), m.image / "var/crash");
  const crash::Collected c = collect_machine(m.root(), test::builtin_kb());
  EXPECT_EQ(gpus(c), std::vector<std::string>{"0000:cb:00"});
  ASSERT_EQ(c.observations.size(), 1U);
  EXPECT_EQ(c.observations[0].origin.source, "/var/crash/202501251034/dmesg.202501251034");
  EXPECT_EQ(c.observations[0].when.boot, "kdump");
}

// Event XML as wevtutil prints it (tests/unit/data/crash/events/README.md): Kernel-Power 41 on
// the host's side, EventLog 6008 in the image.
constexpr const char* k_host_event =
    "<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>"
    "<Provider Name='Microsoft-Windows-Kernel-Power' "
    "Guid='{331c3b3a-2005-44c2-ac5e-77220c37d6b4}'/><EventID>41</EventID><Level>1</Level>"
    "<TimeCreated SystemTime='2024-05-26T10:12:40.5000000Z'/><EventRecordID>1</EventRecordID>"
    "<Channel>System</Channel><Computer>HOST</Computer></System><EventData>"
    "<Data Name='BugcheckCode'>0</Data><Data Name='PowerButtonTimestamp'>0</Data>"
    "</EventData></Event>\n";
constexpr const char* k_image_event =
    "<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>"
    "<Provider Name='EventLog'/><EventID Qualifiers='32768'>6008</EventID><Level>2</Level>"
    "<TimeCreated SystemTime='2024-05-26T10:14:02.0000000Z'/><EventRecordID>2</EventRecordID>"
    "<Channel>System</Channel><Computer>IMAGE</Computer></System><EventData>"
    "<Data>10:02:11 AM</Data><Data>5/26/2024</Data></EventData></Event>\n";

TEST(CrashEvidence, WindowsDiskEventLogLinkStaysInTheImage) {
  Machine m;
  test::write_file(m.host / "System.evtx", k_host_event);
  test::write_file(m.in_image(m.host / "System.evtx"), k_image_event);
  test::mkdirs(m.image / "Windows/System32/winevt/Logs");
  test::make_symlink((m.host / "System.evtx").string(),
                     m.image / "Windows/System32/winevt/Logs/System.evtx");
  const crash::Collected c = collect_machine(m.root(), test::builtin_kb());
  ASSERT_EQ(c.observations.size(), 1U);
  EXPECT_EQ(c.observations[0].kind, crash::ObservationKind::unexpected_shutdown);
  EXPECT_EQ(c.observations[0].platform, crash::Platform::windows);
  const crash::SourceStatus* s = source(c, "/Windows/System32/winevt/Logs/System.evtx");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->status, "read");
}

TEST(CrashEvidence, LinuxTreeSourcesAndRotationOrder) {
  Machine m;
  test::write_file(m.image / "var/log/kern.log.1", k_image_line);
  test::write_file(m.image / "var/log/kern.log", "Aug 31 00:00:00 image kernel: nothing\n");
  test::write_file(m.image / "var/log/syslog", k_host_line); // kern.log is there: not read
  const crash::Collected c = collect_machine(m.root(), test::builtin_kb());
  std::vector<std::string> read;
  for (const crash::SourceStatus& s : c.sources) {
    if (s.status == "read") {
      read.push_back(s.source);
    }
  }
  EXPECT_EQ(read, (std::vector<std::string>{"/var/log/kern.log.1", "/var/log/kern.log"}));
  EXPECT_EQ(gpus(c), std::vector<std::string>{"0000:cb:00"});
  EXPECT_TRUE(c.earlier_boots_covered);
  ASSERT_NE(source(c, "/dev/kmsg"), nullptr);
  EXPECT_EQ(source(c, "/dev/kmsg")->status, "skipped");
  ASSERT_NE(source(c, "journal"), nullptr);
  EXPECT_EQ(source(c, "journal")->status, "absent");
}

TEST(CrashEvidence, WindowsTreeIsChosenByItsSystem32) {
  Machine m;
  test::write_file(m.image / "Windows/System32/winevt/Logs/System.evtx", k_image_event);
  test::write_file(m.image / "var/log/kern.log", k_image_line); // not a Linux tree's evidence
  const crash::Collected c = collect_machine(m.root(), test::builtin_kb());
  EXPECT_EQ(source(c, "/var/log/kern.log"), nullptr);
  ASSERT_NE(source(c, "/Windows/Minidump"), nullptr);
  EXPECT_EQ(source(c, "/Windows/Minidump")->status, "absent");
  ASSERT_NE(source(c, "/Windows/System32/winevt/Logs/Application.evtx"), nullptr);
  EXPECT_EQ(source(c, "/Windows/System32/winevt/Logs/Application.evtx")->status, "absent");
  ASSERT_EQ(c.observations.size(), 1U);
  EXPECT_EQ(c.observations[0].origin.source, "/Windows/System32/winevt/Logs/System.evtx");
}

} // namespace
} // namespace doctor::collect
