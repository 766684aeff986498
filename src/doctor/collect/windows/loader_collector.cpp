// SPDX-License-Identifier: MIT
// The Windows loader model (loader/windows_analysis.hpp) walked over the examined machine through
// a recording probe: every path it asks about (a windows_path_key: normalised, lower case) is
// looked at once and kept in facts.probed_paths, and every DLL it finds is read into
// facts.binaries, so that check, run on the facts or on a snapshot, gets the same answers.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/loader/file_probe.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

class WindowsRecordingProbe final : public loader::FileProbe {
public:
  WindowsRecordingProbe(const platform::SysRoot& root, const Facts& facts)
      : m_root(root) {
    for (const ProbedPath& p : facts.probed_paths) {
      m_probed.emplace(p.path, p);
    }
    for (const BinaryInfo& b : facts.binaries) {
      m_binaries.emplace(loader::windows_path_key(b.path), std::make_unique<BinaryInfo>(b));
    }
  }

  loader::PathState probe(const std::string& path) override {
    auto it = m_probed.find(path);
    if (it == m_probed.end()) {
      it = m_probed.emplace(path, look(path)).first;
    }
    const ProbedPath& p = it->second;
    loader::PathState out;
    out.exists = p.exists;
    out.is_dir = p.kind == "directory";
    out.kind = p.exists ? p.kind : std::string();
    out.real_path = p.real_path;
    if (p.exists && p.kind == "regular") {
      out.binary = binary(p.real_path);
    }
    return out;
  }

  void store(Facts& facts) const {
    facts.probed_paths.clear();
    for (const auto& [path, p] : m_probed) {
      facts.probed_paths.push_back(p);
    }
    facts.binaries.clear();
    for (const auto& [key, b] : m_binaries) {
      facts.binaries.push_back(*b);
    }
  }

private:
  ProbedPath look(const std::string& path) {
    ProbedPath p;
    p.path = path;
    const auto inner = windows_inner(m_root, path);
    if (!inner) {
      return p;
    }
    auto st = m_root.stat(*inner);
    if (!st) {
      return p;
    }
    p.exists = true;
    p.kind = std::string(platform::to_string(st->kind));
    auto real = m_root.resolve(*inner);
    p.real_path = windows_outer(m_root, real ? *real : *inner);
    // A DLL read before (by the cuDNN or driver collector) keeps the case it was listed with.
    if (auto b = m_binaries.find(loader::windows_path_key(p.real_path)); b != m_binaries.end()) {
      p.real_path = b->second->path;
    }
    return p;
  }

  const BinaryInfo* binary(const std::string& real_path) {
    const std::string key = loader::windows_path_key(real_path);
    auto it = m_binaries.find(key);
    if (it == m_binaries.end()) {
      auto info = read_windows_binary(m_root, real_path);
      if (!info) {
        return nullptr;
      }
      info->path = real_path;
      it = m_binaries.emplace(key, std::make_unique<BinaryInfo>(std::move(*info))).first;
    }
    return it->second.get();
  }

  const platform::SysRoot& m_root;
  std::map<std::string, ProbedPath> m_probed;
  std::map<std::string, std::unique_ptr<BinaryInfo>> m_binaries; // by windows_path_key
};

// torch\__init__.py preloads every DLL of torch\lib: the model needs the listing.
void list_framework_folders(const platform::SysRoot& root, Facts& facts) {
  for (const PythonEnv& env : facts.python_envs) {
    for (const Framework& fw : env.frameworks) {
      if (fw.name != "torch") {
        continue;
      }
      const std::string dir = loader::windows_join(fw.location, "lib");
      auto entries = list_windows_dir(root, dir);
      if (!entries) {
        continue;
      }
      std::vector<std::string> dlls;
      for (const platform::DirEntry& e : *entries) {
        const std::string lower = util::to_lower(e.name);
        if (lower.size() > 4 && lower.ends_with(".dll")) {
          dlls.push_back(e.name);
        }
      }
      std::sort(dlls.begin(), dlls.end());
      facts.windows.dll_listings[dir] = std::move(dlls);
    }
  }
}

} // namespace

void collect_windows_loader(const platform::SysRoot& root,
                            const CollectOptions& options,
                            Facts& facts) {
  std::optional<kb::KnowledgeBase> embedded;
  const kb::KnowledgeBase* kb = options.kb;
  if (kb == nullptr) {
    auto loaded = kb::KnowledgeBase::load_embedded();
    if (!loaded) {
      throw std::runtime_error(loaded.error().message);
    }
    embedded = std::move(*loaded);
    kb = &*embedded;
  }
  list_framework_folders(root, facts);
  WindowsRecordingProbe probe(root, facts);
  loader::analyse_windows(facts, *kb, probe);
  probe.store(facts);
}

} // namespace doctor::collect
