// SPDX-License-Identifier: MIT
// The observation-kind table: one complete row per kind, public names that do not move, findings
// that exist, and recognisers that make each kind on the platforms its row names.
#include "support/test_paths.hpp"

#include <doctor/crash/dump_observations.hpp>
#include <doctor/crash/kernel_events.hpp>
#include <doctor/crash/observation_kinds.hpp>
#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/event_xml.hpp>
#include <doctor/formats/kernel_log.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

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

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The fixtures of tests/unit/data/crash/<dir> (real lines and event shapes, README.md there).
std::vector<std::filesystem::path> fixtures(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(
           std::filesystem::path(test::test_data_dir()) / "crash" / dir)) {
    if (e.path().extension() != ".md") {
      out.push_back(e.path());
    }
  }
  EXPECT_FALSE(out.empty()) << dir;
  return out;
}

TEST(ObservationKinds, PublicNamesInEnumOrder) {
  // The names are the JSON output's "kind": append-only.
  const std::vector<std::string> expected = {"xid",
                                             "sxid",
                                             "gpu_lost",
                                             "gpu_init_failed",
                                             "driver_mismatch",
                                             "driver_conflict",
                                             "gsp_error",
                                             "mce",
                                             "edac",
                                             "pcie_aer",
                                             "oom_kill",
                                             "kernel_oops",
                                             "kernel_panic",
                                             "lockup",
                                             "bugcheck",
                                             "tdr",
                                             "nvidia_event",
                                             "power_loss",
                                             "unexpected_shutdown",
                                             "whea",
                                             "app_crash",
                                             "app_hang"};
  std::vector<std::string> names;
  for (const KindInfo& k : observation_kinds()) {
    names.emplace_back(k.name);
    EXPECT_EQ(to_string(k.kind), k.name);
    EXPECT_EQ(&kind_info(k.kind), &k);
  }
  EXPECT_EQ(names, expected);
}

TEST(ObservationKinds, EveryRowIsComplete) {
  std::set<std::string_view> names;
  for (const KindInfo& k : observation_kinds()) {
    EXPECT_TRUE(names.insert(k.name).second) << "name twice: " << k.name;
    EXPECT_NE(k.read, nullptr) << k.name;
    EXPECT_NE(builtin().finding(k.finding), nullptr)
        << k.name << " names " << k.finding << ", which findings.json lacks";
    if (k.records_share_code) {
      EXPECT_GT(k.record_window_usec, 0) << k.name << ": records of one event need a window";
    }
    EXPECT_FALSE(k.restart && k.joins_restart) << k.name;
  }
}

TEST(ObservationKinds, RestartsAndTheirRecordsAreWindowsKinds) {
  for (const KindInfo& k : observation_kinds()) {
    if (k.restart || k.joins_restart || k.record_window_usec > 0 || k.gpu_timeout) {
      EXPECT_EQ(k.seen, Seen::windows) << k.name;
    }
  }
  EXPECT_TRUE(kind_info(ObservationKind::bugcheck).restart);
  EXPECT_TRUE(kind_info(ObservationKind::power_loss).restart);
  EXPECT_TRUE(kind_info(ObservationKind::unexpected_shutdown).joins_restart);
}

bool seen_on(const KindInfo& k, Platform p) {
  return k.seen == Seen::both || (k.seen == Seen::linux) == (p == Platform::linux);
}

TEST(ObservationKinds, KernelLogKindsAreLinuxObservations) {
  std::set<std::string_view> kinds;
  for (const auto& path : fixtures("kernel")) {
    const std::string text = read_all(path);
    for (const Observation& o : observe_kernel_lines(formats::read_kernel_log(text, "k"))) {
      EXPECT_EQ(o.platform, Platform::linux) << path << ": " << to_string(o.kind);
      EXPECT_TRUE(seen_on(kind_info(o.kind), o.platform)) << to_string(o.kind);
      kinds.insert(to_string(o.kind));
    }
  }
  EXPECT_GE(kinds.size(), 12U) << "the fixtures reach most kernel-log kinds";
}

TEST(ObservationKinds, EventLogKindsAreWindowsObservations) {
  std::set<std::string_view> kinds;
  for (const auto& path : fixtures("events")) {
    auto records = formats::parse_event_xml(read_all(path), path.filename().string());
    ASSERT_TRUE(records) << path << ": " << records.error().message;
    for (const Observation& o : observe_events(*records)) {
      EXPECT_EQ(o.platform, Platform::windows) << path << ": " << to_string(o.kind);
      EXPECT_TRUE(seen_on(kind_info(o.kind), o.platform)) << to_string(o.kind);
      kinds.insert(to_string(o.kind));
    }
  }
  EXPECT_GE(kinds.size(), 8U) << "the fixtures reach every Windows event kind";
}

TEST(ObservationKinds, DumpsAreWindowsObservations) {
  formats::MiniDump mini;
  mini.exception_code = 0xC0000005;
  EXPECT_EQ(observe_minidump(mini, {"a.dmp", ""}).platform, Platform::windows);
  formats::KernelDump kernel;
  kernel.bugcheck_code = 0x116;
  const Observation bugcheck = observe_kernel_dump(kernel, {"MEMORY.DMP", ""}, std::nullopt);
  EXPECT_EQ(bugcheck.platform, Platform::windows);
  EXPECT_TRUE(seen_on(kind_info(bugcheck.kind), bugcheck.platform));
}

} // namespace
} // namespace doctor::crash
