// SPDX-License-Identifier: MIT
// explain's machine join on a Windows machine (explain/windows_join.cpp through join_machine):
// an in-memory Windows machine whose loader walk is recorded into the facts, as the collector
// records a live one, and a cause as the log's signatures give it.
#include "support/check_fixtures.hpp"
#include "support/windows_tree.hpp"

#include <doctor/explain/machine_join.hpp>
#include <doctor/explain/windows_join.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::k_system32;
using test::k_torch_lib;
using test::WindowsTree;

// A result with one cause, as explain builds it from a log line: the finding `id` of class
// `cls`, with the captured `lib` unless empty.
explain::ExplainResult cause(std::string_view id, CauseClass cls, const std::string& lib = {}) {
  explain::ExplainResult r;
  r.log_platform = "windows";
  explain::ExplainedCause c;
  c.finding.id = std::string(id);
  c.finding.cause_class = cls;
  c.confidence = 80;
  if (!lib.empty()) {
    c.fields.emplace_back("lib", lib);
  }
  r.causes.push_back(std::move(c));
  return r;
}

explain::ExplainResult zlib_cause() {
  return cause(kb::ids::k_log_zlibwapi_missing, CauseClass::library_missing_zlib);
}

// The machine's notes on the first cause, one per line, for failure messages.
std::string notes_of(const explain::ExplainResult& r) {
  std::string out;
  for (const explain::MachineNote& n : r.causes.front().machine) {
    out +=
        (n.confirms ? "+ " : "- ") + n.text + (n.command.empty() ? "" : " $ " + n.command) + "\n";
  }
  return out;
}

const explain::MachineNote* note_with(const explain::ExplainResult& r, const std::string& text) {
  for (const explain::MachineNote& n : r.causes.front().machine) {
    if (n.text.find(text) != std::string::npos) {
      return &n;
    }
  }
  return nullptr;
}

bool says_absent(const explain::ExplainResult& r) {
  return note_with(r, "No copy of") != nullptr || note_with(r, "has to be installed") != nullptr;
}

// torch 2.0.1+cu118 in C:\venv with its wheel's cuDNN 8.9.2 in torch\lib, PATH as given; the
// collector's cuDNN installation and its probe for zlibwapi.dll next to it.
facts::Facts torch_machine(const WindowsTree& t, const std::string& path) {
  auto f = test::windows_machine(path, test::framework("torch", "2.0.1+cu118", "11.8", "8.9.2"));
  f.cudnn.push_back(test::cudnn_install(k_torch_lib, 8, {{"cudnn64_8.dll", "8.9.2"}}, "8.9.2"));
  t.record(f, {k_torch_lib + "\\zlibwapi.dll"});
  return f;
}

explain::ExplainResult joined(explain::ExplainResult r, const facts::Facts& f) {
  explain::join_machine(r, f, test::embedded_kb(), {}, "test machine");
  return r;
}

TEST(explain_windows_join, a_missing_zlibwapi_names_the_cudnn_folder_that_lacks_it) {
  WindowsTree t;
  test::torch_wheel(t);
  const auto r = joined(zlib_cause(), torch_machine(t, k_system32 + ";C:\\Windows"));
  ASSERT_TRUE(r.machine_joined);
  const explain::MachineNote* lacks =
      note_with(r, "put a 64-bit zlibwapi.dll into " + k_torch_lib + ", next to cudnn64_8.dll");
  ASSERT_NE(lacks, nullptr) << notes_of(r);
  EXPECT_TRUE(lacks->confirms);
  EXPECT_EQ(lacks->command, "") << "no 64-bit copy to copy from";
  EXPECT_NE(note_with(r, "torch 2.0.1+cu118 in C:\\venv: error 126"), nullptr) << notes_of(r);
  // Every place the walk searched was recorded: absence is known.
  EXPECT_NE(note_with(r, "No copy of zlibwapi.dll on this machine where the doctor looked"),
            nullptr)
      << notes_of(r);
  EXPECT_GT(r.causes.front().confidence, 80);
}

TEST(explain_windows_join, a_copy_only_on_path_is_named_and_never_called_absent) {
  WindowsTree t;
  test::torch_wheel(t);
  t.dll("C:\\zlib\\bin\\zlibwapi.dll");
  const auto r = joined(zlib_cause(), torch_machine(t, k_system32 + ";C:\\zlib\\bin"));
  EXPECT_FALSE(says_absent(r)) << notes_of(r);
  EXPECT_NE(note_with(r,
                      "The copy of zlibwapi.dll on this machine: C:\\zlib\\bin\\zlibwapi.dll "
                      "(a 64-bit x64 DLL)"),
            nullptr)
      << notes_of(r);
  EXPECT_NE(note_with(r,
                      "torch 2.0.1+cu118 in C:\\venv: loads C:\\zlib\\bin\\zlibwapi.dll "
                      "(via PATH)."),
            nullptr)
      << notes_of(r);
  // The cuDNN folder still lacks it: the process that failed had another PATH; the fix copies
  // the one there is next to cuDNN.
  const explain::MachineNote* lacks = note_with(r, k_torch_lib + " (cuDNN 8.9.2) lacks");
  ASSERT_NE(lacks, nullptr) << notes_of(r);
  EXPECT_FALSE(lacks->confirms);
  EXPECT_NE(lacks->text.find("the processes modelled here load C:\\zlib\\bin\\zlibwapi.dll, so "
                             "the process that failed searched differently (another PATH)"),
            std::string::npos)
      << lacks->text;
  EXPECT_NE(lacks->text.find("A 64-bit copy is in C:\\zlib\\bin."), std::string::npos)
      << lacks->text;
  EXPECT_EQ(lacks->command, "Copy-Item C:\\zlib\\bin\\zlibwapi.dll " + k_torch_lib);
}

TEST(explain_windows_join, a_copy_on_path_that_the_load_does_not_search_is_said_so) {
  WindowsTree t;
  test::cudnn8(t, "C:\\tools\\cuda\\bin");
  t.dll(k_system32 + "\\nvcuda.dll");
  t.dll("C:\\zlib\\zlibwapi.dll");
  // Python 3.8+ imports an extension module with LOAD_LIBRARY_SEARCH_* flags: its imports are
  // never looked for on PATH.
  t.dll(test::k_sp + "\\ext\\gpu.pyd", {"KERNEL32.dll", "zlibwapi.dll"});
  auto f = test::windows_machine(k_system32 + ";C:\\zlib",
                                 test::framework("tensorflow", "2.10.1", "11.2", "8.1"));
  t.record(f);
  WindowsTree::Probe probe(t);
  std::vector<loader::WindowsLoadContext> contexts{
      loader::simulate_python_extension(test::k_sp + "\\ext\\gpu.pyd",
                                        loader::windows_python_process(f, f.python_envs.front()),
                                        test::embedded_kb(),
                                        probe)};
  auto r = zlib_cause();
  explain::join_windows_library(r.causes.front(), "zlibwapi.dll", f, test::embedded_kb(), contexts);
  EXPECT_FALSE(says_absent(r)) << notes_of(r);
  const explain::MachineNote* ext = note_with(r, "Python import of");
  ASSERT_NE(ext, nullptr) << notes_of(r);
  EXPECT_NE(ext->text.find("error 126"), std::string::npos) << ext->text;
  EXPECT_NE(ext->text.find("C:\\zlib\\zlibwapi.dll is on PATH, but this load does not search "
                           "PATH"),
            std::string::npos)
      << ext->text;
}

TEST(explain_windows_join, a_copy_next_to_cudnn_is_not_absent_and_is_what_torch_loads) {
  WindowsTree t;
  test::torch_wheel(t);
  t.dll(k_torch_lib + "\\zlibwapi.dll");
  const auto r = joined(zlib_cause(), torch_machine(t, k_system32 + ";C:\\Windows"));
  EXPECT_FALSE(says_absent(r)) << notes_of(r);
  EXPECT_EQ(note_with(r, "lacks"), nullptr) << notes_of(r);
  EXPECT_EQ(note_with(r, "not known"), nullptr) << notes_of(r);
  EXPECT_NE(note_with(r, k_torch_lib + " (cuDNN 8.9.2) has zlibwapi.dll next to cudnn64_8.dll"),
            nullptr)
      << notes_of(r);
  EXPECT_NE(note_with(r,
                      "torch 2.0.1+cu118 in C:\\venv: loads " + k_torch_lib
                          + "\\zlibwapi.dll (by its full path)"),
            nullptr)
      << notes_of(r);
}

TEST(explain_windows_join, a_32_bit_copy_found_first_is_error_193_with_the_good_one) {
  WindowsTree t;
  test::torch_wheel(t);
  t.dll("C:\\old zlib\\zlibwapi.dll", {"KERNEL32.dll"}, 32);
  t.dll("C:\\good zlib\\zlibwapi.dll");
  const auto r = joined(zlib_cause(), torch_machine(t, k_system32 + ";C:\\old zlib;C:\\good zlib"));
  EXPECT_FALSE(says_absent(r)) << notes_of(r);
  const explain::MachineNote* bad = note_with(r, "error 193");
  ASSERT_NE(bad, nullptr) << notes_of(r);
  EXPECT_NE(bad->text.find("The first zlibwapi.dll its search meets is C:\\old zlib\\zlibwapi.dll "
                           "(via PATH), a 32-bit x86 DLL, and Windows stops there"),
            std::string::npos)
      << bad->text;
  EXPECT_NE(bad->text.find("the loadable C:\\good zlib\\zlibwapi.dll comes later"),
            std::string::npos)
      << bad->text;
  const explain::MachineNote* lacks = note_with(r, "lacks zlibwapi.dll: put a 64-bit");
  ASSERT_NE(lacks, nullptr) << notes_of(r);
  EXPECT_TRUE(lacks->confirms);
  // PowerShell gets the path with a space in single quotes.
  EXPECT_EQ(lacks->command, "Copy-Item 'C:\\good zlib\\zlibwapi.dll' " + k_torch_lib);
}

TEST(explain_windows_join, cudnn_in_two_places_names_both_and_the_one_each_context_loads) {
  WindowsTree t;
  test::cudnn8(t, "C:\\tools\\cuda\\bin");
  t.dll(k_system32 + "\\cudnn64_8.dll");
  t.dll(k_system32 + "\\nvcuda.dll");
  auto f = test::windows_machine(k_system32 + ";C:\\tools\\cuda\\bin",
                                 test::framework("tensorflow", "2.10.1", "11.2", "8.1"));
  f.cudnn.push_back(
      test::cudnn_install("C:\\tools\\cuda\\bin", 8, {{"cudnn64_8.dll", "8.9.4"}}, "8.9.4"));
  t.record(f);
  // The log names the DLL in another case than the files have.
  const auto r = joined(
      cause(kb::ids::k_log_cudnn_not_found, CauseClass::library_missing_cudnn, "CUDNN64_8.dll"), f);
  EXPECT_FALSE(says_absent(r)) << notes_of(r);
  EXPECT_NE(note_with(r,
                      "Copies of CUDNN64_8.dll on this machine: C:\\tools\\cuda\\bin\\"
                      "cudnn64_8.dll (a 64-bit x64 DLL); C:\\Windows\\System32\\cudnn64_8.dll "
                      "(a 64-bit x64 DLL)."),
            nullptr)
      << notes_of(r);
  EXPECT_NE(note_with(r,
                      "tensorflow 2.10.1 in C:\\venv: loads C:\\Windows\\System32\\"
                      "cudnn64_8.dll (via System32)."),
            nullptr)
      << notes_of(r);
}

TEST(explain_windows_join, without_a_recorded_search_a_missing_copy_is_not_known) {
  WindowsTree t;
  test::torch_wheel(t);
  auto f = test::windows_machine(k_system32, test::framework("torch", "2.0.1+cu118", "11.8", ""));
  f.cudnn.push_back(test::cudnn_install(k_torch_lib, 8, {{"cudnn64_8.dll", "8.9.2"}}, "8.9.2"));
  const auto r = joined(zlib_cause(), f); // a snapshot that holds no loader walk
  EXPECT_FALSE(says_absent(r)) << notes_of(r);
  EXPECT_NE(note_with(r,
                      "Whether this machine has a copy of zlibwapi.dll is not known: the facts "
                      "record none, and no search for it."),
            nullptr)
      << notes_of(r);
  EXPECT_NE(note_with(r,
                      "Whether " + k_torch_lib
                          + " (cuDNN 8.9.2) holds zlibwapi.dll is not "
                            "known"),
            nullptr)
      << notes_of(r);
  EXPECT_EQ(r.causes.front().confidence, 80) << "nothing confirmed";
}

TEST(explain_windows_join, linux_keeps_its_own_join) {
  auto f = test::machine_without_gpu();
  auto r =
      cause(kb::ids::k_log_cudnn_not_found, CauseClass::library_missing_cudnn, "libcudnn.so.9");
  r.log_platform = "linux";
  r = joined(std::move(r), f);
  EXPECT_NE(note_with(r,
                      "No copy of libcudnn.so.9 exists on this machine (among the places the "
                      "doctor examines): it has to be installed."),
            nullptr)
      << notes_of(r);
}

} // namespace
} // namespace doctor
