// SPDX-License-Identifier: MIT
#pragma once

#include "support/check_fixtures.hpp"

#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

// An in-memory Windows machine for the tests of the Windows loader checks and of explain's Windows
// machine join: DLL files with PE headers, whose loader walk (loader/windows_analysis.hpp) is
// recorded into the facts as the collector records a live machine's, so that afterwards
// everything answers from the facts alone, as from a snapshot.
namespace doctor::test {

inline const std::string k_sp = "C:\\venv\\Lib\\site-packages";
inline const std::string k_torch_lib = k_sp + "\\torch\\lib";
inline const std::string k_system32 = "C:\\Windows\\System32";

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
  // `extra` are paths a collector probes besides the walk (zlibwapi.dll next to each cuDNN).
  void record(facts::Facts& facts, const std::vector<std::string>& extra = {}) const {
    Probe probe(*this);
    loader::analyse_windows(facts, embedded_kb(), probe);
    for (const std::string& path : extra) {
      probe.probe(loader::windows_path_key(path));
    }
    facts.probed_paths.clear();
    facts.binaries.clear();
    for (const auto& [key, p] : probe.probed) {
      facts.probed_paths.push_back(p);
      if (const auto f = m_files.find(key); f != m_files.end()) {
        facts.binaries.push_back(f->second);
      }
    }
  }

  // Answers the loader model from the tree and keeps what it was asked.
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

private:
  std::map<std::string, facts::BinaryInfo> m_files;
  std::set<std::string> m_dirs;
};

// A Windows 11 machine with Python 3.10 registered for the user and a venv C:\venv holding
// `framework`; PATH as given.
inline facts::Facts windows_machine(const std::string& path, facts::Framework framework) {
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
  env.python_version = known("3.10.11");
  env.site_packages = known(k_sp);
  framework.location = k_sp + "\\" + framework.name;
  env.frameworks.push_back(std::move(framework));
  f.python_envs.push_back(std::move(env));
  return f;
}

// cuDNN 8.9's DLLs in `dir`, importing each other as the 8.9.4 wheel's do.
inline void cudnn8(WindowsTree& t, const std::string& dir) {
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
inline void torch_wheel(WindowsTree& t, std::vector<std::string> torch_cuda_imports = {}) {
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
inline void list_torch_lib(facts::Facts& f, const WindowsTree& t) {
  f.windows.dll_listings[k_torch_lib] = t.names_in(k_torch_lib);
}

} // namespace doctor::test
