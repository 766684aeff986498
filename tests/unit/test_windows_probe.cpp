// SPDX-License-Identifier: MIT
// collect::WindowsProbe, the probe `resolve` and the Windows loader collector look at a Windows
// machine through, on a Windows disk mounted case-sensitively (a tree with Windows/System32): the
// loader model asks in lower case, the probe finds the files in the case the disk has them, takes
// PE headers the facts hold, and records every look for a snapshot.
#include "support/temp_tree.hpp"

#include <doctor/collect/windows_probe.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/platform/registry_hive.hpp>
#include <doctor/report/resolve_report.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace doctor {
namespace {

using loader::FoundVia;
using test::TempDir;

const std::string k_system32_copy = "C:\\Windows\\System32\\cudnn64_8.dll";
const std::string k_path_copy = "C:\\cudnn\\bin\\cudnn64_8.dll";

facts::BinaryInfo cudnn_dll(const std::string& path, const std::string& version) {
  facts::BinaryInfo b;
  b.path = path;
  b.format = "pe";
  b.bits = 64;
  b.machine = "x64";
  b.file_version = version;
  b.needed = {"KERNEL32.dll"};
  return b;
}

// A disk with cuDNN in System32 (when `in_system32`) and in C:\cudnn\bin, on PATH; the PE headers
// of both are in the facts, as the cuDNN collector leaves them.
struct Disk {
  TempDir tmp;
  facts::Facts facts;

  explicit Disk(bool in_system32) {
    test::mkdirs(tmp.at("Windows/System32"));
    if (in_system32) {
      tmp.write("Windows/System32/cudnn64_8.dll", "MZ");
      facts.binaries.push_back(cudnn_dll(k_system32_copy, "8.9.7.29"));
    }
    tmp.write("cudnn/bin/cudnn64_8.dll", "MZ");
    facts.binaries.push_back(cudnn_dll(k_path_copy, "8.9.4.25"));
    facts.collection.os_family = "windows";
    facts.windows.windows_dir = "C:\\Windows";
    facts.windows.system32 = "C:\\Windows\\System32";
    facts.environment["PATH"] = "C:\\Windows\\System32;C:\\cudnn\\bin";
  }

  platform::SysRoot root() const {
    return platform::open_tree_root(tmp.path(), platform::Environment());
  }
};

std::size_t step_of(const loader::Resolution& r, FoundVia via, const std::string& path) {
  const auto it = std::find_if(r.steps.begin(), r.steps.end(), [&](const loader::SearchStep& s) {
    return s.via == via && loader::windows_path_key(s.path) == loader::windows_path_key(path);
  });
  return static_cast<std::size_t>(it - r.steps.begin());
}

TEST(windows_probe, loadlibrary_takes_the_system32_copy_before_the_one_on_path) {
  Disk disk(true);
  const platform::SysRoot root = disk.root();
  ASSERT_EQ(root.os(), platform::OsFamily::windows);
  collect::WindowsProbe probe(root, disk.facts);
  const loader::Resolution r =
      loader::resolve_windows("cudnn64_8.dll", {}, loader::windows_config_from(disk.facts), probe);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, k_system32_copy);
  EXPECT_EQ(r.chosen->via, FoundVia::system32);
  ASSERT_NE(r.chosen->binary, nullptr);
  EXPECT_EQ(r.chosen->binary->file_version, "8.9.7.29");
  ASSERT_EQ(r.shadowed.size(), 1U);
  EXPECT_EQ(r.shadowed[0].path, k_path_copy);
  EXPECT_EQ(r.shadowed[0].via, FoundVia::path);
  // The Windows order: System32, then the 16-bit system and Windows folders, then PATH.
  const std::size_t sys32 = step_of(r, FoundVia::system32, k_system32_copy);
  const std::size_t windows = step_of(r, FoundVia::windows_dir, "C:\\Windows\\cudnn64_8.dll");
  const std::size_t on_path = step_of(r, FoundVia::path, k_path_copy);
  ASSERT_LT(on_path, r.steps.size());
  EXPECT_LT(sys32, windows);
  EXPECT_LT(windows, on_path);
  EXPECT_EQ(r.steps[windows].outcome, "absent");

  report::ResolveReport rep;
  rep.windows = true;
  rep.steps.push_back({r, loader::LibraryRole::cudnn_dispatcher, ""});
  rep.file_versions.emplace(r.chosen->real_path, *collect::cudnn_dll_version(*r.chosen->binary));
  const std::string text = report::render_resolve_text(rep);
  EXPECT_NE(text.find("cudnn64_8.dll => C:\\Windows\\System32\\cudnn64_8.dll [System32]\n"
                      "  cuDNN 8.9.7.29, PE 64-bit x64\n"
                      "  asked for by a program calling LoadLibraryW\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    C:\\cudnn\\bin\\cudnn64_8.dll (PE 64-bit x64) [PATH]"),
            std::string::npos)
      << text;
}

TEST(windows_probe, without_the_system32_copy_the_path_copy_wins_and_the_looks_are_recorded) {
  Disk disk(false);
  const platform::SysRoot root = disk.root();
  collect::WindowsProbe probe(root, disk.facts);
  const loader::Resolution r =
      loader::resolve_windows("cudnn64_8", {}, loader::windows_config_from(disk.facts), probe);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, k_path_copy);
  EXPECT_EQ(r.chosen->via, FoundVia::path);
  EXPECT_TRUE(r.shadowed.empty());
  // A program of unknown folder: the application directory is the one path not judged.
  EXPECT_TRUE(r.unknown);
  const std::size_t app = step_of(r, FoundVia::app_dir, "");
  ASSERT_LT(app, r.steps.size());
  EXPECT_EQ(r.steps[app].outcome, "not known");
  facts::Facts stored = disk.facts;
  probe.store(stored);
  const auto probed = [&](const std::string& path) -> const facts::ProbedPath* {
    for (const facts::ProbedPath& p : stored.probed_paths) {
      if (p.path == loader::windows_path_key(path)) {
        return &p;
      }
    }
    return nullptr;
  };
  ASSERT_NE(probed(k_system32_copy), nullptr);
  EXPECT_FALSE(probed(k_system32_copy)->exists);
  ASSERT_NE(probed(k_path_copy), nullptr);
  EXPECT_TRUE(probed(k_path_copy)->exists);
  EXPECT_EQ(probed(k_path_copy)->real_path, k_path_copy);
}

TEST(windows_probe, a_recorded_look_answers_before_the_disk) {
  Disk disk(true);
  // The facts say System32 held no cuDNN when they were collected: that answer stands.
  facts::ProbedPath gone;
  gone.path = loader::windows_path_key(k_system32_copy);
  disk.facts.probed_paths.push_back(gone);
  const platform::SysRoot root = disk.root();
  collect::WindowsProbe probe(root, disk.facts);
  EXPECT_FALSE(probe.probe(loader::windows_path_key(k_system32_copy)).exists);
  EXPECT_TRUE(probe.probe(loader::windows_path_key(k_path_copy)).exists);
}

TEST(windows_probe, cudnn_dll_version_needs_a_cudnn_name_and_a_matching_major) {
  EXPECT_EQ(collect::cudnn_dll_version(cudnn_dll(k_path_copy, "8.9.4.25"))->str(), "8.9.4.25");
  EXPECT_FALSE(collect::cudnn_dll_version(cudnn_dll(k_path_copy, "9.1.0.70")));
  EXPECT_FALSE(collect::cudnn_dll_version(cudnn_dll("C:\\x\\zlibwapi.dll", "8.9.4.25")));
  facts::BinaryInfo product = cudnn_dll(k_path_copy, "");
  product.product_version = "8.9.2.26";
  EXPECT_EQ(collect::cudnn_dll_version(product)->str(), "8.9.2.26");
}

} // namespace
} // namespace doctor
