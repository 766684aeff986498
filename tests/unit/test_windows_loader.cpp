// SPDX-License-Identifier: MIT
// The Windows loader checks (checks/windows_loader.cpp) over an in-memory Windows machine whose
// loader walk (loader/windows_analysis.hpp) is recorded into the facts as the collector records a
// live machine's: afterwards the checks answer from the facts alone, as from a snapshot.
#include "support/check_fixtures.hpp"

#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::find_id;
using test::has_evidence;
using test::has_fix_command;
using test::has_id;
using test::run_all;

const std::string k_sp = "C:\\venv\\Lib\\site-packages";
const std::string k_torch_lib = k_sp + "\\torch\\lib";
const std::string k_system32 = "C:\\Windows\\System32";

// Files of a Windows machine, keyed as the model asks (windows_path_key), with PE headers.
class WindowsTree {
public:
  facts::BinaryInfo& dll(const std::string& path,
                         std::vector<std::string> imports = {"KERNEL32.dll"},
                         unsigned bits = 64) {
    facts::BinaryInfo& b = m_files[loader::windows_path_key(path)];
    b.path = path;
    b.format = "pe";
    b.size = 100000;
    b.bits = bits;
    b.machine = bits == 64 ? "x64" : "x86";
    b.needed = std::move(imports);
    for (std::string d = loader::windows_parent(path); !d.empty() && d.size() > 3;
         d = loader::windows_parent(d)) {
      m_dirs.insert(loader::windows_path_key(d));
    }
    return b;
  }

  // The file names directly in `dir`, as a directory listing gives them.
  std::vector<std::string> names_in(const std::string& dir) const {
    std::vector<std::string> out;
    for (const auto& [key, b] : m_files) {
      if (loader::windows_path_key(loader::windows_parent(b.path))
          == loader::windows_path_key(dir)) {
        out.push_back(loader::windows_file_name(b.path));
      }
    }
    return out;
  }

  // Walks the model as the collector does and stores what it looked at in `facts`.
  void record(facts::Facts& facts) const {
    Probe probe(*this);
    loader::analyse_windows(facts, test::embedded_kb(), probe);
    facts.probed_paths.clear();
    facts.binaries.clear();
    for (const auto& [key, p] : probe.probed) {
      facts.probed_paths.push_back(p);
      if (const auto f = m_files.find(key); f != m_files.end()) {
        facts.binaries.push_back(f->second);
      }
    }
  }

private:
  struct Probe final : loader::FileProbe {
    explicit Probe(const WindowsTree& tree)
        : m_tree(tree) {}
    loader::PathState probe(const std::string& key) override {
      facts::ProbedPath p;
      p.path = key;
      loader::PathState st;
      if (const auto f = m_tree.m_files.find(key); f != m_tree.m_files.end()) {
        p.exists = st.exists = true;
        p.kind = "regular";
        p.real_path = st.real_path = f->second.path;
        st.binary = &f->second;
      } else if (m_tree.m_dirs.count(key) != 0) {
        p.exists = st.exists = st.is_dir = true;
        p.kind = "directory";
        p.real_path = st.real_path = key;
      }
      probed.emplace(key, p);
      return st;
    }
    const WindowsTree& m_tree;
    std::map<std::string, facts::ProbedPath> probed;
  };

  std::map<std::string, facts::BinaryInfo> m_files;
  std::set<std::string> m_dirs;
};

// A Windows 11 machine with Python 3.10 registered for the user and a venv C:\venv holding
// `framework`; PATH as given.
facts::Facts windows_machine(const std::string& path, facts::Framework framework) {
  facts::Facts f;
  f.collection.os_family = "windows";
  f.collection.live = true;
  f.windows.system32 = k_system32;
  f.windows.known_dlls = facts::Fact<std::vector<std::string>>::known({"kernel32.dll"}, "test");
  f.environment["Path"] = path;
  facts::PythonRegistration reg;
  reg.hive = "HKCU";
  reg.company = "PythonCore";
  reg.tag = "3.10";
  reg.install_path = "C:\\Python310\\";
  f.windows.python_registrations =
      facts::Fact<std::vector<facts::PythonRegistration>>::known({reg}, "test");
  facts::PythonEnv env;
  env.prefix = "C:\\venv";
  env.kind = "venv";
  env.python_version = test::known("3.10.11");
  env.site_packages = test::known(k_sp);
  framework.location = k_sp + "\\" + framework.name;
  env.frameworks.push_back(std::move(framework));
  f.python_envs.push_back(std::move(env));
  return f;
}

// cuDNN 8.9's DLLs in `dir`, importing each other as the 8.9.4 wheel's do.
void cudnn8(WindowsTree& t, const std::string& dir) {
  t.dll(dir + "\\cudnn64_8.dll");
  t.dll(dir + "\\cudnn_ops_infer64_8.dll");
  t.dll(dir + "\\cudnn_ops_train64_8.dll", {"KERNEL32.dll", "cudnn_ops_infer64_8.dll"});
  t.dll(dir + "\\cudnn_cnn_infer64_8.dll", {"KERNEL32.dll", "cudnn_ops_infer64_8.dll"});
  t.dll(dir + "\\cudnn_adv_infer64_8.dll", {"KERNEL32.dll", "cudnn_ops_infer64_8.dll"});
  t.dll(dir + "\\cudnn_cnn_train64_8.dll",
        {"cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll", "cudnn_cnn_infer64_8.dll"});
  t.dll(dir + "\\cudnn_adv_train64_8.dll",
        {"cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll", "cudnn_adv_infer64_8.dll"});
}

// torch 2.0.1+cu118 as its wheel lays out torch\lib, with the driver's nvcuda.dll in System32.
void torch_wheel(WindowsTree& t, std::vector<std::string> torch_cuda_imports = {}) {
  cudnn8(t, k_torch_lib);
  for (const char* n : {"cudart64_110.dll",
                        "cublas64_11.dll",
                        "cublasLt64_11.dll",
                        "nvrtc64_112_0.dll",
                        "c10.dll"}) {
    t.dll(k_torch_lib + "\\" + n);
  }
  std::vector<std::string> imports{"KERNEL32.dll", "c10.dll", "cudart64_110.dll", "cudnn64_8.dll"};
  imports.insert(imports.end(), torch_cuda_imports.begin(), torch_cuda_imports.end());
  t.dll(k_torch_lib + "\\torch_cuda.dll", imports);
  t.dll(k_system32 + "\\nvcuda.dll");
}

// The listing of torch\lib the collector makes: torch preloads every DLL there.
void list_torch_lib(facts::Facts& f, const WindowsTree& t) {
  f.windows.dll_listings[k_torch_lib] = t.names_in(k_torch_lib);
}

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
  EXPECT_TRUE(has_fix_command(
      *n, "$env:PATH = 'C:\\Program Files\\NVIDIA\\CUDNN\\v8.9\\bin' + ';' + $env:PATH"));
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
