// SPDX-License-Identifier: MIT
#include "support/fake_win_fs.hpp"

#include <doctor/collect/probe_runs.hpp>
#include <doctor/loader/windows_search.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::FakeWinFs;

const kb::KnowledgeBase& knowledge() {
  static const kb::KnowledgeBase kb = *kb::KnowledgeBase::load_embedded();
  return kb;
}

facts::Facts windows_machine(const std::string& path) {
  facts::Facts f;
  f.collection.os_family = "windows";
  f.windows.windows_dir = "C:\\Windows";
  f.windows.system32 = "C:\\Windows\\System32";
  f.environment["PATH"] = path;
  return f;
}

TEST(choose_probe_library, windows_driver_api_is_nvcuda_from_system32) {
  FakeWinFs fs;
  fs.dll("C:\\Windows\\System32\\nvcuda.dll");
  const facts::Facts f = windows_machine("C:\\cudnn\\bin");
  const facts::ProbeLibrary lib = collect::choose_probe_library("cuda", f, knowledge(), fs, "");
  EXPECT_EQ(loader::windows_path_key(lib.path), "c:\\windows\\system32\\nvcuda.dll");
  EXPECT_EQ(lib.found_via, "System32");
}

TEST(choose_probe_library, windows_cudnn_and_cublas_come_from_path_newest_major_first) {
  FakeWinFs fs;
  fs.dll("C:\\cudnn\\bin\\cudnn64_8.dll");
  fs.dll("C:\\cudnn\\bin\\cudnn64_9.dll");
  fs.dll("C:\\cuda\\bin\\cublasLt64_12.dll");
  fs.dll("C:\\cuda\\bin\\cublas64_11.dll");
  fs.dll("C:\\cuda\\bin\\cublas64_12.dll");
  const facts::Facts f = windows_machine("C:\\cuda\\bin;C:\\cudnn\\bin");
  const facts::ProbeLibrary cudnn = collect::choose_probe_library("cudnn", f, knowledge(), fs, "");
  EXPECT_EQ(loader::windows_path_key(cudnn.path), "c:\\cudnn\\bin\\cudnn64_9.dll");
  EXPECT_EQ(cudnn.found_via, "PATH");
  const facts::ProbeLibrary cublas =
      collect::choose_probe_library("cublas", f, knowledge(), fs, "");
  EXPECT_EQ(loader::windows_path_key(cublas.path), "c:\\cuda\\bin\\cublas64_12.dll");
}

TEST(choose_probe_library, windows_without_a_driver_lists_every_place_searched) {
  FakeWinFs fs;
  const facts::Facts f = windows_machine("C:\\tools");
  const facts::ProbeLibrary lib = collect::choose_probe_library("cuda", f, knowledge(), fs, "");
  EXPECT_TRUE(lib.path.empty());
  EXPECT_EQ(lib.name, "nvcuda.dll");
  const auto has = [&](const std::string& text) {
    for (const std::string& s : lib.searched) {
      if (loader::windows_path_key(s).find(text) != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(has("c:\\windows\\system32\\nvcuda.dll")) << ::testing::PrintToString(lib.searched);
  EXPECT_TRUE(has("c:\\tools\\nvcuda.dll")) << ::testing::PrintToString(lib.searched);
}

TEST(choose_probe_library, windows_lib_override_wins) {
  FakeWinFs fs;
  fs.dll("C:\\Windows\\System32\\nvcuda.dll");
  const facts::Facts f = windows_machine("");
  const facts::ProbeLibrary lib =
      collect::choose_probe_library("cuda", f, knowledge(), fs, "D:\\x\\nvcuda.dll");
  EXPECT_EQ(lib.path, "D:\\x\\nvcuda.dll");
  EXPECT_EQ(lib.found_via, "--lib");
}

} // namespace
} // namespace doctor
