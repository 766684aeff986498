// SPDX-License-Identifier: MIT
// The Windows loader model (loader/windows_analysis.hpp) walked over the examined machine through
// a recording probe (windows_probe.hpp): every path it asks about (a windows_path_key: normalised,
// lower case) is looked at once and kept in facts.probed_paths, and every DLL it finds is read
// into facts.binaries, so that check, run on the facts or on a snapshot, gets the same answers.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows_probe.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>

#include <optional>
#include <stdexcept>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

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
  WindowsProbe probe(root, facts);
  loader::analyse_windows(facts, *kb, probe);
  probe.store(facts);
}

} // namespace doctor::collect
