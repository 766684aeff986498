// SPDX-License-Identifier: MIT
// The Windows loader model (loader/windows_analysis.hpp) walked over the examined machine through
// a recording probe (windows_probe.hpp): every path it asks about (a windows_path_key: normalised,
// lower case) is looked at once and kept in facts.probed_paths, and every DLL it finds is read
// into facts.binaries, so that check, run on the facts or on a snapshot, gets the same answers.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/collect/windows_probe.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

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
  WindowsProbe probe(root, facts);
  loader::analyse_windows(facts, *kb, probe);
  probe.store(facts);
}

} // namespace doctor::collect
