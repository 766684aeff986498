// SPDX-License-Identifier: MIT
// crash::analyse: observations read through the built-in catalogues, folded and linked.
#include "support/builtin_kb.hpp"
#include "support/test_paths.hpp"

#include <doctor/crash/analysis.hpp>
#include <doctor/crash/kernel_events.hpp>
#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/event_xml.hpp>
#include <doctor/formats/kernel_log.hpp>
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>

namespace doctor::crash {
namespace {

constexpr std::int64_t k_s = 1000000;

Observation xid(const std::string& code,
                std::int64_t uptime_s,
                const std::string& pci,
                const std::string& pid = "",
                const std::string& caused_by = "") {
  Observation o;
  o.kind = ObservationKind::xid;
  o.code = code;
  o.when.uptime_usec = uptime_s * k_s;
  o.when.boot = "b1";
  o.origin = {"kern.log", "line " + std::to_string(uptime_s)};
  o.set("pci", pci);
  if (!pid.empty()) {
    o.set("pid", pid);
  }
  if (!caused_by.empty()) {
    o.set("caused_by", caused_by);
  }
  o.lines.push_back("NVRM: Xid (PCI:" + pci + "): " + code + ", …");
  return o;
}

Observation windows(ObservationKind kind,
                    const std::string& code,
                    std::int64_t utc_s,
                    const std::string& source,
                    const std::string& event_id = "") {
  Observation o;
  o.kind = kind;
  o.platform = Platform::windows;
  o.code = code;
  o.when.utc_usec = utc_s * k_s;
  o.origin = {source, "event 1"};
  if (!event_id.empty()) {
    o.set("event_id", event_id);
  }
  return o;
}

std::string read_fixture(const std::string& name) {
  std::ifstream in(test::test_data_dir() + "/crash/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The incidents of a fixture of tests/unit/data/crash (real lines and real event shapes; the
// README.md next to each names its sources), read by the recognisers as collection does.
std::vector<Incident> kernel_fixture(const std::string& name,
                                     const kb::KnowledgeBase& kb = test::builtin_kb()) {
  const std::string text = read_fixture("kernel/" + name);
  return analyse(observe_kernel_lines(formats::read_kernel_log(text, name)), kb, {});
}

std::vector<Incident> event_fixture(const std::string& name) {
  const std::string text = read_fixture("events/" + name);
  auto records = formats::parse_event_xml(text, name);
  EXPECT_TRUE(records) << (records ? "" : records.error().message);
  return analyse(
      records ? observe_events(*records) : std::vector<Observation>{}, test::builtin_kb(), {});
}

const Incident* find_incident(const std::vector<Incident>& incidents,
                              ObservationKind kind,
                              const std::string& code = "") {
  for (const Incident& i : incidents) {
    if (i.kind == kind && (code.empty() || i.code == code)) {
      return &i;
    }
  }
  return nullptr;
}

bool has_note(const Incident& i, std::string_view part) {
  return std::any_of(i.notes.begin(), i.notes.end(), [&](const std::string& n) {
    return n.find(part) != std::string::npos;
  });
}

TEST(CrashAnalysis, XidReadThroughTheCatalogue) {
  const auto incidents = analyse({xid("79", 100, "0000:41:00")}, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 1U);
  const Incident& i = incidents[0];
  EXPECT_EQ(i.kind, ObservationKind::xid);
  EXPECT_EQ(i.code, "79");
  EXPECT_EQ(i.name, "GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_EQ(i.cause_class, CauseClass::hardware_unstable);
  EXPECT_EQ(i.finding, "log.gpu_fallen_off_bus");
  EXPECT_NE(i.title.find("GPU 0000:41:00"), std::string::npos) << i.title;
  EXPECT_FALSE(i.fixes.empty());
  EXPECT_EQ(i.platform, "linux");
}

TEST(CrashAnalysis, BurstsFoldAndSecondaryXidsFollowTheirRoot) {
  std::vector<Observation> obs = {
      xid("13", 100, "0000:41:00", "7"),
      xid("13", 100, "0000:41:00", "7"),
      xid("13", 100, "0000:41:00", "7"),
      xid("45", 101, "0000:41:00", "7"),
      xid("13", 1200, "0000:41:00", "8"), // a second burst, 18 minutes later
  };
  const auto incidents = analyse(obs, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 3U);
  EXPECT_EQ(incidents[0].count, 3U);
  EXPECT_EQ(incidents[1].code, "45");
  ASSERT_TRUE(incidents[1].consequence_of.has_value());
  EXPECT_EQ(*incidents[1].consequence_of, 0U);
  EXPECT_EQ(incidents[2].count, 1U);
  EXPECT_FALSE(incidents[2].consequence_of.has_value());
  EXPECT_EQ(incidents[0].cause_class, CauseClass::application_error);
}

TEST(CrashAnalysis, RepeatsWithinMinutesFoldButCrashesDoNot) {
  std::vector<Observation> obs = {xid("119", 100, "0000:9b:00", "1"),
                                  xid("119", 106, "0000:9b:00", "1"),
                                  xid("119", 400, "0000:9b:00", "2")};
  const auto incidents = analyse(obs, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 1U);
  EXPECT_EQ(incidents[0].count, 3U);
  EXPECT_EQ(incidents[0].last.uptime_usec, 400 * k_s);
  std::vector<Observation> crashes = {
      windows(ObservationKind::app_crash, "0xc0000005", 1000, "Application.xml", "1000"),
      windows(ObservationKind::app_crash, "0xc0000005", 1060, "Application.xml", "1000")};
  EXPECT_EQ(analyse(crashes, test::builtin_kb(), {}).size(), 2U);
}

TEST(CrashAnalysis, CausedByPreviousXidLinksToThatXid) {
  std::vector<Observation> obs = {
      xid("149", 10, "0000:dc:00"),
      xid("31", 20, "0000:dc:00", "5"),
      xid("45", 200, "0000:dc:00", "9", "149"),
  };
  const auto incidents = analyse(obs, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 3U);
  ASSERT_TRUE(incidents[2].consequence_of.has_value());
  EXPECT_EQ(*incidents[2].consequence_of, 0U) << "follows Xid 149, not the nearer Xid 31";
}

TEST(CrashAnalysis, SameAppXidFromManyProcessesSuspectsTheGpu) {
  std::vector<Observation> obs = {
      xid("31", 10, "0000:db:00", "100"),
      xid("31", 100, "0000:db:00", "200"),
      xid("31", 2000, "0000:db:00", "300"),
      xid("31", 3000, "0000:3b:00", "400"),
  };
  const auto incidents = analyse(obs, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 3U) << "the first two fold into one incident";
  EXPECT_EQ(incidents[0].count, 2U);
  EXPECT_EQ(incidents[0].cause_class, CauseClass::hardware_unstable);
  EXPECT_EQ(incidents[1].cause_class, CauseClass::hardware_unstable);
  EXPECT_EQ(incidents[2].cause_class, CauseClass::application_error) << "another GPU, one process";
}

TEST(CrashAnalysis, OneWindowsCrashFromThreeRecordsIsOneIncident) {
  Observation dump = windows(ObservationKind::bugcheck, "0x116", 1000, "052626-8015-01.dmp");
  dump.set("module", "nvlddmkm.sys");
  dump.set("module_offset", "0x1234");
  dump.set("module_timestamp", "2020-12-31");
  dump.set("param2", "0xfffff80512341234");
  std::vector<Observation> obs = {
      windows(ObservationKind::bugcheck, "0x116", 1200, "System.xml", "1001"),
      windows(ObservationKind::bugcheck, "0x116", 1190, "System.xml", "41"),
      windows(ObservationKind::unexpected_shutdown, "6008", 1195, "System.xml", "6008"),
      dump,
  };
  const auto incidents = analyse(obs, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 1U);
  const Incident& i = incidents[0];
  EXPECT_EQ(i.count, 4U);
  EXPECT_EQ(i.name, "VIDEO_TDR_FAILURE");
  EXPECT_EQ(i.cause_class, CauseClass::os_tdr_or_bugcheck);
  EXPECT_NE(i.title.find("nvlddmkm.sys"), std::string::npos) << i.title;
  EXPECT_NE(i.title.find("2020-12-31"), std::string::npos) << i.title;
  EXPECT_EQ(i.when.utc_usec, 1000 * k_s) << "the dump's crash time, not the reboot's";
}

TEST(CrashAnalysis, TwoCrashesWithTheSameCodeStayTwo) {
  std::vector<Observation> obs = {
      windows(ObservationKind::bugcheck, "0x116", 1000, "System.xml", "1001"),
      windows(ObservationKind::bugcheck, "0x116", 1600, "System.xml", "1001"),
  };
  EXPECT_EQ(analyse(obs, test::builtin_kb(), {}).size(), 2U);
}

TEST(CrashAnalysis, PowerLossWithoutBugCheckPointsAtPower) {
  Observation o = windows(ObservationKind::power_loss, "41", 5000, "System.xml", "41");
  o.set("power_button_timestamp", "0");
  const auto incidents = analyse({o}, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 1U);
  EXPECT_EQ(incidents[0].cause_class, CauseClass::hardware_unstable);
  EXPECT_EQ(incidents[0].finding, "log.unexpected_power_loss");
  ASSERT_FALSE(incidents[0].notes.empty());
  EXPECT_NE(incidents[0].notes[0].find("power was cut"), std::string::npos);
}

TEST(CrashAnalysis, RepeatedTdrsMeetTheMachinesTdrDelay) {
  std::vector<Observation> obs = {
      windows(ObservationKind::tdr, "4101", 1000, "System.xml", "4101"),
      windows(ObservationKind::tdr, "4101", 2000, "System.xml", "4101"),
  };
  MachineContext machine;
  machine.tdr_settings_read = true; // TdrDelay absent: the 2 s default
  const auto incidents = analyse(obs, test::builtin_kb(), machine);
  ASSERT_EQ(incidents.size(), 2U);
  const auto& notes = incidents[1].notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("2 GPU timeouts") != std::string::npos;
  }));
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("TdrDelay is 2 s on this machine (the default)") != std::string::npos;
  }));
  EXPECT_EQ(incidents[0].finding, "log.display_tdr");
}

TEST(CrashAnalysis, DifferentStopCodesWithoutADriverSuspectHardware) {
  std::vector<Observation> obs = {
      windows(ObservationKind::bugcheck, "0x1a", 1000, "a.dmp"),
      windows(ObservationKind::bugcheck, "0x50", 90000, "b.dmp"),
  };
  const auto incidents = analyse(obs, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 2U);
  EXPECT_TRUE(
      std::any_of(incidents[0].notes.begin(), incidents[0].notes.end(), [](const std::string& n) {
        return n.find("2 different stop codes") != std::string::npos;
      }));
}

TEST(CrashAnalysis, AppCrashNamesTheGpuModule) {
  Observation o =
      windows(ObservationKind::app_crash, "0xc0000005", 1000, "Application.xml", "1000");
  o.set("process", "python.exe");
  o.set("module", "cudnn_cnn_infer64_8.dll");
  o.set("offset", "0x1a2b3");
  const auto incidents = analyse({o}, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 1U);
  EXPECT_NE(incidents[0].title.find("python.exe crashed in cudnn_cnn_infer64_8.dll (cuDNN)"),
            std::string::npos)
      << incidents[0].title;
  EXPECT_EQ(incidents[0].finding, "crash.app_crash");
  EXPECT_EQ(incidents[0].platform, "windows");
}

TEST(CrashAnalysis, PcieErrorsBeforeALostGpuAreNoted) {
  Observation aer;
  aer.kind = ObservationKind::pcie_aer;
  aer.when.uptime_usec = 90 * k_s;
  aer.when.boot = "b1";
  aer.origin = {"kern.log", "line 1"};
  aer.set("severity", "Corrected");
  const auto incidents = analyse({aer, xid("79", 100, "0000:41:00")}, test::builtin_kb(), {});
  ASSERT_EQ(incidents.size(), 2U);
  EXPECT_EQ(incidents[0].cause_class, CauseClass::hardware_unstable);
  EXPECT_TRUE(
      std::any_of(incidents[1].notes.begin(), incidents[1].notes.end(), [](const std::string& n) {
        return n.find("PCIe bus errors") != std::string::npos;
      }));
}

// Xid 62 (a firmware-category Xid: PMU halt) from madMAx43v3r/chia-gigahorse#301, as that dmesg
// printed it (research anchors-crash-forensics.md 7.1 row 10).
TEST(CrashAnalysis, FirmwareXidIsAGpuDriverError) {
  const auto incidents = kernel_fixture("dmesg_xid_uuid.log");
  const Incident* x62 = find_incident(incidents, ObservationKind::xid, "62");
  ASSERT_NE(x62, nullptr);
  EXPECT_EQ(x62->finding, "crash.gpu_driver_error");
  EXPECT_EQ(x62->name, "PMU_HALT_ERROR");
  EXPECT_EQ(x62->platform, "linux");
  EXPECT_NE(x62->title.find("Xid 62 on GPU 0000:0a:00"), std::string::npos) << x62->title;
  const Incident* x31 = find_incident(incidents, ObservationKind::xid, "31");
  ASSERT_NE(x31, nullptr);
  EXPECT_EQ(x31->finding, "log.gpu_app_fault") << "an application-category Xid";
}

// SXid lines of leptonai/gpud PR #338 and NVIDIA/nvtrust#124 (research 7.1 rows 28-29).
TEST(CrashAnalysis, SxidIsAnNvswitchError) {
  const auto incidents = kernel_fixture("sxid.log");
  ASSERT_EQ(incidents.size(), 2U);
  for (const Incident& i : incidents) {
    EXPECT_EQ(i.kind, ObservationKind::sxid);
    EXPECT_EQ(i.finding, "crash.nvswitch_error");
    EXPECT_EQ(i.platform, "linux");
  }
  EXPECT_EQ(incidents[1].title, "SXid 22013 on NVSwitch 0000:04:00.0 (Non-fatal)");
  EXPECT_EQ(incidents[1].severity, Severity::warning) << "a non-fatal SXid was corrected";
  EXPECT_EQ(incidents[1].cause_class, CauseClass::hardware_unstable);
}

// The NULL-pointer oops in nvidia.ko of NVIDIA/open-gpu-kernel-modules#276, and the soft/hard
// lockups and hung task of deepspeedai/DeepSpeed#925, iron-fish/ironfish#701 and research 6.3.
TEST(CrashAnalysis, KernelOopsAndLockupsAreKernelCrashes) {
  const auto oopses = kernel_fixture("dmesg_oops_nvidia.log");
  const Incident* oops = find_incident(oopses, ObservationKind::kernel_oops);
  ASSERT_NE(oops, nullptr);
  EXPECT_EQ(oops->finding, "crash.kernel_crash");
  EXPECT_EQ(oops->subject, "the Linux kernel");
  EXPECT_EQ(oops->title.rfind("Kernel Oops: kernel NULL pointer dereference", 0), 0U)
      << oops->title;
  EXPECT_TRUE(has_note(*oops, "the nvidia modules appear in this report"));

  const auto lockups = kernel_fixture("lockup.log");
  ASSERT_EQ(lockups.size(), 4U);
  for (const Incident& i : lockups) {
    EXPECT_EQ(i.kind, ObservationKind::lockup);
    EXPECT_EQ(i.finding, "crash.kernel_crash");
  }
  EXPECT_EQ(lockups[0].title, "Kernel lockup: soft lockup on CPU 7 for 23 s (pytest)");
}

// Application Hang 1002 with positional Data, as older Windows 10 writes it (henrypp/simplewall
// #780; tests/unit/data/crash/events/README.md).
TEST(CrashAnalysis, ApplicationHangIsAnAppHang) {
  const auto incidents = event_fixture("application_win10_positional.xml");
  const Incident* hang = find_incident(incidents, ObservationKind::app_hang);
  ASSERT_NE(hang, nullptr);
  EXPECT_EQ(hang->finding, "crash.app_hang");
  EXPECT_EQ(hang->title, "python.exe stopped responding (Application Hang)");
  EXPECT_EQ(hang->cause_class, CauseClass::application_error);
  EXPECT_EQ(hang->platform, "windows");
}

// nvlddmkm 13 carries the text of Xid 13 (MrNeRF/LichtFeld-Studio#2080): xid.json's
// nvlddmkm_event reads it as that Xid.
TEST(CrashAnalysis, NvlddmkmEventReadsAsItsXid) {
  const auto incidents = event_fixture("system_gpu_events.xml");
  const Incident* event = find_incident(incidents, ObservationKind::nvidia_event, "13");
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(event->finding, "log.gpu_app_fault");
  EXPECT_EQ(event->name, "GR_EXCEPTION");
  EXPECT_TRUE(has_note(*event, "nvlddmkm event 13 is the Windows form of Xid 13"));
}

// The same kind from two platforms: the incident says the platform its observation was read from.
TEST(CrashAnalysis, IncidentTakesThePlatformOfItsObservation) {
  // The kernel's report of a user-space SIGSEGV (show_signal_msg format).
  const auto linux_crash =
      analyse(observe_kernel_lines(formats::read_kernel_log(
                  "[ 5.000000] python3[4242]: segfault at 0 ip 00007f12 sp 00007ffd error 4 in "
                  "libcudnn_cnn_infer.so.8[7f0000000000+1000]\n",
                  "kern.log")),
              test::builtin_kb(),
              {});
  ASSERT_EQ(linux_crash.size(), 1U);
  EXPECT_EQ(linux_crash[0].kind, ObservationKind::app_crash);
  EXPECT_EQ(linux_crash[0].platform, "linux");
  const auto windows_crash = event_fixture("application_win11_utf16.xml");
  const Incident* w = find_incident(windows_crash, ObservationKind::app_crash);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->platform, "windows");
  // Nothing is guessed from the kind: an observation's own platform is kept.
  Observation odd = xid("13", 1, "0000:01:00");
  odd.platform = Platform::windows;
  EXPECT_EQ(analyse({odd}, test::builtin_kb(), {})[0].platform, "windows");
}

// The Xid → finding mapping is data: editing xid.json's category_findings and a row's own
// "finding" changes the incidents' findings.
TEST(CrashAnalysis, XidFindingsComeFromTheCatalogue) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const kb::EmbeddedFile& f : kb::embedded_files()) {
    std::string text(f.contents);
    if (f.name == "xid.json") {
      nlohmann::json d = nlohmann::json::parse(text);
      for (auto& c : d["category_findings"]) {
        if (c["category"] == "application") {
          c["finding"] = "log.gpu_memory_error";
        }
      }
      for (auto& x : d["xids"]) {
        if (x["code"] == 79) {
          x.erase("finding");
        }
      }
      text = d.dump();
    }
    files.emplace_back(f.name, std::move(text));
  }
  auto edited = kb::KnowledgeBase::load(files);
  ASSERT_TRUE(edited) << edited.error().message;
  const auto incidents =
      analyse({xid("13", 1, "0000:01:00"), xid("79", 100, "0000:02:00")}, *edited, {});
  ASSERT_EQ(incidents.size(), 2U);
  EXPECT_EQ(incidents[0].finding, "log.gpu_memory_error");
  EXPECT_EQ(incidents[1].finding, "crash.gpu_driver_error") << "79 now takes bus_power's";
  EXPECT_EQ(analyse({xid("79", 100, "0000:02:00")}, test::builtin_kb(), {})[0].finding,
            "log.gpu_fallen_off_bus");
}

TEST(CrashAnalysis, EveryIncidentFindingExists) {
  const std::vector<std::string> ids = incident_finding_ids(test::builtin_kb());
  for (const std::string& id : ids) {
    EXPECT_NE(test::builtin_kb().finding(id), nullptr) << id;
  }
  // The Xid catalogue's own findings are among them.
  EXPECT_NE(std::find(ids.begin(), ids.end(), "log.gpu_memory_error"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "log.gpu_app_fault"), ids.end());
}

} // namespace
} // namespace doctor::crash
