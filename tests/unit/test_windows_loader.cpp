// SPDX-License-Identifier: MIT
// The Windows loader checks (checks/windows_loader.cpp) over an in-memory Windows machine whose
// loader walk (loader/windows_analysis.hpp) is recorded into the facts as the collector records a
// live machine's: afterwards the checks answer from the facts alone, as from a snapshot.
#include "support/check_fixtures.hpp"
#include "support/windows_tree.hpp"

#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::cudnn8;
using test::find_id;
using test::has_evidence;
using test::has_fix_command;
using test::has_id;
using test::k_sp;
using test::k_system32;
using test::k_torch_lib;
using test::list_torch_lib;
using test::run_all;
using test::torch_wheel;
using test::windows_machine;
using test::WindowsTree;

facts::Framework torch() {
  auto fw = test::framework("torch", "2.0.1+cu118", "11.8", "8.9.2");
  return fw;
}

std::vector<Finding> checked(facts::Facts& f, const WindowsTree& t) {
  t.record(f);
  return run_all(f);
}

TEST(check_windows_loader, missing_zlibwapi_names_the_cudnn_folder_and_goes_once_it_is_there) {
  WindowsTree t;
  torch_wheel(t);
  auto f = windows_machine(k_system32 + ";C:\\Windows", torch());
  auto findings = checked(f, t);
  const Finding* z = find_id(findings, test::ids::k_windows_zlibwapi_not_found);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->subject, k_torch_lib);
  EXPECT_NE(z->message.find(k_torch_lib + "\\cudnn_ops_infer64_8.dll needs zlibwapi.dll"),
            std::string::npos)
      << z->message;
  EXPECT_TRUE(std::any_of(z->fixes.begin(), z->fixes.end(), [](const Fix& x) {
    return x.text.find("into " + k_torch_lib + ", next to the cuDNN DLLs") != std::string::npos;
  }));
  EXPECT_TRUE(has_evidence(*z, k_system32 + "\\zlibwapi.dll"));

  t.dll(k_torch_lib + "\\zlibwapi.dll");
  findings = checked(f, t);
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_zlibwapi_not_found));
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_dll_not_found));
}

TEST(check_windows_loader, a_32_bit_dll_found_first_on_path_is_error_193_with_the_good_copy) {
  WindowsTree t;
  torch_wheel(t);
  t.dll("C:\\old zlib\\zlibwapi.dll", {"KERNEL32.dll"}, 32);
  t.dll("C:\\good\\zlibwapi.dll");
  auto f = windows_machine(k_system32 + ";C:\\old zlib;C:\\good", torch());
  const auto findings = checked(f, t);
  const Finding* w = find_id(findings, test::ids::k_windows_dll_wrong_architecture);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->subject, "C:\\old zlib\\zlibwapi.dll");
  EXPECT_NE(w->message.find("a 32-bit x86 DLL"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("C:\\good\\zlibwapi.dll"), std::string::npos) << w->message;
  // The path has a space: PowerShell gets it in single quotes.
  EXPECT_TRUE(has_fix_command(*w, "Rename-Item 'C:\\old zlib\\zlibwapi.dll' zlibwapi.dll.disabled"))
      << w->fixes.front().command;
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_zlibwapi_not_found));
}

TEST(check_windows_loader, a_cudnn_copy_in_system32_is_a_warning_with_what_it_shadows) {
  WindowsTree t;
  cudnn8(t, "C:\\tools\\cuda\\bin");
  t.dll(k_system32 + "\\cudnn64_8.dll");
  t.dll(k_system32 + "\\nvcuda.dll");
  auto tf = test::framework("tensorflow", "2.10.1", "11.2", "8.1");
  auto f = windows_machine(k_system32 + ";C:\\tools\\cuda\\bin", tf);
  facts::CudnnInstall inst = test::cudnn_install("C:\\tools\\cuda\\bin", 8, {}, "8.9.4");
  f.cudnn.push_back(inst);
  const auto findings = checked(f, t);
  const Finding* s = find_id(findings, test::ids::k_windows_system_dir_copy);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->subject, k_system32 + "\\cudnn64_8.dll");
  EXPECT_NE(s->message.find("C:\\tools\\cuda\\bin\\cudnn64_8.dll"), std::string::npos)
      << s->message;
  EXPECT_TRUE(has_fix_command(*s, "Remove-Item C:\\Windows\\System32\\cudnn64_8.dll"));
  EXPECT_EQ(test::all_of(findings, test::ids::k_windows_system_dir_copy).size(), 1U)
      << "one finding per file, whichever contexts load it";
}

TEST(check_windows_loader, a_missing_vc_runtime_import_is_named_with_the_redistributable) {
  WindowsTree t;
  torch_wheel(t, {"VCRUNTIME140_1.dll"});
  t.dll(k_torch_lib + "\\zlibwapi.dll");
  auto f = windows_machine(k_system32 + ";C:\\Windows", torch());
  list_torch_lib(f, t);
  auto findings = checked(f, t);
  const Finding* vc = find_id(findings, test::ids::k_windows_vc_runtime_missing);
  ASSERT_NE(vc, nullptr);
  EXPECT_NE(vc->message.find("imports VCRUNTIME140_1.dll"), std::string::npos) << vc->message;
  EXPECT_TRUE(has_fix_command(*vc, "winget install --id Microsoft.VCRedist.2015+.x64"));

  // python.org's installer puts vcruntime140_1.dll next to python.exe, the application directory
  // of a venv's process (the registered base interpreter, not the venv's Scripts folder).
  t.dll("C:\\Python310\\vcruntime140_1.dll");
  findings = checked(f, t);
  EXPECT_FALSE(has_id(findings, test::ids::k_windows_vc_runtime_missing));
}

TEST(check_windows_loader, a_missing_cudnn_points_at_the_copy_elsewhere_with_a_quoted_path) {
  WindowsTree t;
  cudnn8(t, "C:\\Program Files\\NVIDIA\\CUDNN\\v8.9\\bin");
  t.dll(k_system32 + "\\nvcuda.dll");
  auto tf = test::framework("tensorflow", "2.10.1", "11.2", "8.1");
  auto f = windows_machine(k_system32, tf);
  f.cudnn.push_back(test::cudnn_install(
      "C:\\Program Files\\NVIDIA\\CUDNN\\v8.9\\bin", 8, {{"cudnn64_8.dll", "8.9.4"}}, "8.9.4"));
  const auto findings = checked(f, t);
  const Finding* n = nullptr;
  for (const Finding* x : test::all_of(findings, test::ids::k_windows_dll_not_found)) {
    if (x->message.find("loads cudnn64_8.dll") != std::string::npos) {
      n = x;
    }
  }
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(
      has_fix_command(*n, "$env:PATH = \"C:\\Program Files\\NVIDIA\\CUDNN\\v8.9\\bin;$env:PATH\""));
}

// A folder PowerShell would take bare as an argument is still inside the string: in an
// assignment a bare C:\cudnn\bin would be run as a command.
TEST(check_windows_loader, the_path_fix_is_a_powershell_string_for_any_folder) {
  WindowsTree t;
  cudnn8(t, "C:\\cudnn\\bin");
  t.dll(k_system32 + "\\nvcuda.dll");
  auto tf = test::framework("tensorflow", "2.10.1", "11.2", "8.1");
  auto f = windows_machine(k_system32, tf);
  f.cudnn.push_back(
      test::cudnn_install("C:\\cudnn\\bin", 8, {{"cudnn64_8.dll", "8.9.4"}}, "8.9.4"));
  const auto findings = checked(f, t);
  bool found = false;
  for (const Finding* x : test::all_of(findings, test::ids::k_windows_dll_not_found)) {
    found = found || has_fix_command(*x, "$env:PATH = \"C:\\cudnn\\bin;$env:PATH\"");
  }
  EXPECT_TRUE(found);
}

TEST(check_windows_loader, nothing_for_linux_facts_or_a_snapshot_without_a_walk) {
  WindowsTree t;
  torch_wheel(t);
  auto f = windows_machine(k_system32, torch());
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_zlibwapi_not_found)) << "no walk recorded";
  t.record(f);
  f.collection.os_family = "linux";
  EXPECT_FALSE(has_id(run_all(f), test::ids::k_windows_zlibwapi_not_found));
}

} // namespace
} // namespace doctor
