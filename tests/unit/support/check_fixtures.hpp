// SPDX-License-Identifier: MIT
#pragma once

#include "support/facts_fixtures.hpp"

#include <doctor/kb/finding_ids.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/loader/file_probe.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

// Machines for the check tests (test_<family file>.cpp), on top of facts_fixtures.hpp: a working
// GPU machine, Python environments with frameworks, and an in-memory file tree whose loader walk
// is recorded into the facts as the collector records a live machine's.
namespace doctor::test {

namespace ids = kb::ids;

// A complete cuDNN 9.19 set as its files are named.
inline const std::vector<std::pair<std::string, std::string>> k_cudnn9_full = {
    {"libcudnn.so.9", "9.19.0"},
    {"libcudnn_adv.so.9", "9.19.0"},
    {"libcudnn_cnn.so.9", "9.19.0"},
    {"libcudnn_engines_precompiled.so.9", "9.19.0"},
    {"libcudnn_engines_runtime_compiled.so.9", "9.19.0"},
    {"libcudnn_graph.so.9", "9.19.0"},
    {"libcudnn_heuristic.so.9", "9.19.0"},
    {"libcudnn_ops.so.9", "9.19.0"}};

inline const kb::KnowledgeBase& embedded_kb() {
  static const kb::KnowledgeBase k_kb = *kb::KnowledgeBase::load_embedded();
  return k_kb;
}

// A working machine: one GPU bound to the loaded module `driver`, with matching user-space
// libraries.
inline facts::Facts machine_with(std::uint32_t device_id, const char* driver) {
  auto f = machine_without_gpu();
  facts::PciScan scan;
  scan.devices_scanned = 7;
  scan.nvidia_gpus.push_back(nvidia_gpu("0000:01:00.0", device_id, "nvidia"));
  f.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  f.driver.kernel_module_version = known(driver, "file:/proc/driver/nvidia/version");
  f.driver.kernel_module_type = known("proprietary", "file:/proc/driver/nvidia/version");
  facts::DriverLibrary lib;
  lib.name = "libcuda";
  lib.path = std::string("/usr/lib/x86_64-linux-gnu/libcuda.so.") + driver;
  lib.version = known(driver, "name:" + lib.path);
  f.driver.libraries.push_back(lib);
  return f;
}

inline facts::Framework
framework(const char* name, const char* version, const char* cuda, const char* cudnn) {
  facts::Framework fw;
  fw.name = name;
  fw.location = std::string("/venv/lib/python3.11/site-packages/") + name;
  fw.version = known(version);
  fw.cuda_build = facts::Fact<bool>::known(true, "test");
  fw.cuda_version = known(cuda);
  fw.cudnn_version = cudnn != nullptr ? known(cudnn) : facts::Fact<std::string>::unknown("n/a");
  fw.cuda_archs = facts::Fact<std::vector<std::string>>::unknown("not read");
  return fw;
}

// The venv /venv (site-packages /venv/lib/python3.11/site-packages) holding `fw`.
inline void add_env(facts::Facts& f, facts::Framework fw) {
  facts::PythonEnv env;
  env.prefix = "/venv";
  env.kind = "venv";
  env.site_packages = known("/venv/lib/python3.11/site-packages", "file:/venv/pyvenv.cfg");
  env.frameworks.push_back(std::move(fw));
  f.python_envs.push_back(std::move(env));
}

inline bool has_fix_command(const Finding& f, std::string_view part) {
  return std::any_of(f.fixes.begin(), f.fixes.end(), [&](const Fix& x) {
    return x.command.find(part) != std::string::npos;
  });
}

inline std::vector<const Finding*> all_of(const std::vector<Finding>& findings,
                                          std::string_view id) {
  std::vector<const Finding*> out;
  for (const Finding& f : findings) {
    if (f.id == id) {
      out.push_back(&f);
    }
  }
  return out;
}

// True if some evidence line's value contains `part`.
inline bool has_evidence(const Finding& f, std::string_view part) {
  return std::any_of(f.evidence.begin(), f.evidence.end(), [&](const Evidence& e) {
    return e.value.find(part) != std::string::npos;
  });
}

// Files and directories of a Linux machine, in memory. record() walks the loader model over them
// as the collector walks a live machine (through a recording probe), and stores every path the
// walk looked at, and the headers of every library it read, in the facts: afterwards the checks
// answer from the facts alone, as they do from a snapshot. Everything else is absent.
class MemoryTree {
public:
  // A 64-bit x86-64 shared library at `path` (normalised, absolute).
  facts::BinaryInfo& library(const std::string& path,
                             std::vector<std::string> needed = {},
                             std::vector<std::string> runpath = {}) {
    facts::BinaryInfo& b = m_files[path];
    b.path = path;
    b.format = "elf";
    b.size = 100000;
    b.machine = "x86-64";
    b.bits = 64;
    b.soname = path.substr(path.rfind('/') + 1);
    b.needed = std::move(needed);
    b.runpath = std::move(runpath);
    for (std::string dir = parent(path); dir != "/"; dir = parent(dir)) {
      m_dirs.insert(dir);
    }
    return b;
  }

  void record(facts::Facts& facts) const {
    Probe probe(*this);
    loader::analyse_linux(facts, embedded_kb(), probe);
    facts.probed_paths.clear();
    facts.binaries.clear();
    for (const auto& [path, p] : probe.probed) {
      facts.probed_paths.push_back(p);
      const auto file = m_files.find(path);
      if (file != m_files.end()) {
        facts.binaries.push_back(file->second);
      }
    }
  }

private:
  static std::string parent(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }

  struct Probe final : loader::FileProbe {
    explicit Probe(const MemoryTree& tree)
        : m_tree(tree) {}

    loader::PathState probe(const std::string& path) override {
      facts::ProbedPath p;
      p.path = path;
      loader::PathState st;
      const auto file = m_tree.m_files.find(path);
      if (file != m_tree.m_files.end()) {
        p.exists = st.exists = true;
        p.kind = "regular";
        p.real_path = st.real_path = path;
        p.mode = "0755";
        st.binary = &file->second;
      } else if (m_tree.m_dirs.count(path) != 0) {
        p.exists = st.exists = st.is_dir = true;
        p.kind = "directory";
        p.real_path = st.real_path = path;
        p.mode = "0755";
      }
      probed.emplace(path, p);
      return st;
    }

    const MemoryTree& m_tree;
    std::map<std::string, facts::ProbedPath> probed;
  };

  std::map<std::string, facts::BinaryInfo> m_files;
  std::set<std::string> m_dirs;
};

} // namespace doctor::test
