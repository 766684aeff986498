// SPDX-License-Identifier: MIT
// crash::analyse: observations read through the built-in catalogues, folded and linked.
#include <doctor/crash/analysis.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace doctor::crash {
namespace {

const kb::KnowledgeBase& builtin() {
  static const kb::KnowledgeBase k = [] {
    auto loaded = kb::KnowledgeBase::load_embedded();
    EXPECT_TRUE(loaded.has_value()) << (loaded ? "" : loaded.error().message);
    return loaded ? std::move(*loaded) : kb::KnowledgeBase();
  }();
  return k;
}

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
  o.code = code;
  o.when.utc_usec = utc_s * k_s;
  o.origin = {source, "event 1"};
  if (!event_id.empty()) {
    o.set("event_id", event_id);
  }
  return o;
}

TEST(CrashAnalysis, XidReadThroughTheCatalogue) {
  const auto incidents = analyse({xid("79", 100, "0000:41:00")}, builtin(), {});
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
  const auto incidents = analyse(obs, builtin(), {});
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
  const auto incidents = analyse(obs, builtin(), {});
  ASSERT_EQ(incidents.size(), 1U);
  EXPECT_EQ(incidents[0].count, 3U);
  EXPECT_EQ(incidents[0].last.uptime_usec, 400 * k_s);
  std::vector<Observation> crashes = {
      windows(ObservationKind::app_crash, "0xc0000005", 1000, "Application.xml", "1000"),
      windows(ObservationKind::app_crash, "0xc0000005", 1060, "Application.xml", "1000")};
  EXPECT_EQ(analyse(crashes, builtin(), {}).size(), 2U);
}

TEST(CrashAnalysis, CausedByPreviousXidLinksToThatXid) {
  std::vector<Observation> obs = {
      xid("149", 10, "0000:dc:00"),
      xid("31", 20, "0000:dc:00", "5"),
      xid("45", 200, "0000:dc:00", "9", "149"),
  };
  const auto incidents = analyse(obs, builtin(), {});
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
  const auto incidents = analyse(obs, builtin(), {});
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
  const auto incidents = analyse(obs, builtin(), {});
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
  EXPECT_EQ(analyse(obs, builtin(), {}).size(), 2U);
}

TEST(CrashAnalysis, PowerLossWithoutBugCheckPointsAtPower) {
  Observation o = windows(ObservationKind::power_loss, "41", 5000, "System.xml", "41");
  o.set("power_button_timestamp", "0");
  const auto incidents = analyse({o}, builtin(), {});
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
  const auto incidents = analyse(obs, builtin(), machine);
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
  const auto incidents = analyse(obs, builtin(), {});
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
  const auto incidents = analyse({o}, builtin(), {});
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
  const auto incidents = analyse({aer, xid("79", 100, "0000:41:00")}, builtin(), {});
  ASSERT_EQ(incidents.size(), 2U);
  EXPECT_EQ(incidents[0].cause_class, CauseClass::hardware_unstable);
  EXPECT_TRUE(
      std::any_of(incidents[1].notes.begin(), incidents[1].notes.end(), [](const std::string& n) {
        return n.find("PCIe bus errors") != std::string::npos;
      }));
}

TEST(CrashAnalysis, EveryIncidentFindingExists) {
  for (std::string_view id : incident_finding_ids()) {
    EXPECT_NE(builtin().finding(id), nullptr) << id;
  }
}

} // namespace
} // namespace doctor::crash
