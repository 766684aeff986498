// SPDX-License-Identifier: MIT
#include "collect.hpp"

#include <doctor/loader/analysis.hpp>
#include <doctor/loader/probes.hpp>

#include <fmt/format.h>

namespace doctor::facts {

// Walks every loading context through a recording probe, so that the snapshot holds every path
// the loader model looked at and the headers of every binary it found: the checks then ask the
// same questions of the snapshot and get the same answers. Also reads the headers of every cuDNN
// and driver library (for structural damage) and looks at the directories on LD_LIBRARY_PATH and
// PATH (for planting checks).
void collect_loader(const platform::SysRoot& root, const CollectOptions& options, Facts& facts) {
  if (root.os() != platform::OsFamily::linux) {
    return;
  }
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
  loader::SysRootProbe probe(root);
  loader::analyse_linux(facts, *kb, probe);
  for (const CudnnInstall& inst : facts.cudnn) {
    for (const CudnnLibrary& lib : inst.libraries) {
      probe.binary(lib.real_path);
    }
  }
  for (const DriverLibrary& lib : facts.driver.libraries) {
    probe.binary(lib.path);
  }
  for (const char* var : {"LD_LIBRARY_PATH", "PATH"}) {
    for (const std::string& dir : root.env().list(var)) {
      if (!dir.empty() && dir.front() == '/') {
        probe.probe(platform::normalize_path(dir));
      }
    }
  }
  facts.probed_paths = probe.probed();
  facts.binaries = probe.binaries();
}

} // namespace doctor::facts
