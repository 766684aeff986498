// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/sysroot_probe.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/loader/linux_search.hpp>
#include <doctor/util/paths.hpp>

#include <fmt/format.h>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

// Walks every loading context through a recording probe, so that the snapshot holds every path
// the loader model looked at and the headers of every binary it found: the checks then ask the
// same questions of the snapshot and get the same answers. Also reads the headers of every cuDNN
// and driver library (for structural damage) and looks at the directories on LD_LIBRARY_PATH and
// PATH and in the RPATH/RUNPATH of every binary read (for planting checks).
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
  collect::SysRootProbe probe(root);
  loader::analyse_linux(facts, *kb, probe);
  for (const CudnnInstall& inst : facts.cudnn) {
    for (const CudnnLibrary& lib : inst.libraries) {
      probe.binary(lib.real_path);
    }
  }
  for (const DriverLibrary& lib : facts.driver.libraries) {
    probe.binary(lib.path);
  }
  // LD_LIBRARY_PATH as ld.so splits it (':' and ';', loader::split_library_path), PATH at ':'.
  std::vector<std::string> dirs;
  const std::string ld_library_path = root.env().get("LD_LIBRARY_PATH").value_or("");
  for (std::string_view dir : loader::split_library_path(ld_library_path)) {
    dirs.emplace_back(dir);
  }
  for (const std::string& dir : root.env().list("PATH")) {
    dirs.push_back(dir);
  }
  // The absolute RPATH/RUNPATH directories of every binary read, whether or not the walk
  // searched them (a library that needs no GPU library is never asked for anything), so that
  // the planting checks know every one's mode. Entries with a $TOKEN or relative ones are judged
  // by the checks from the entry itself.
  for (const BinaryInfo& b : probe.binaries()) {
    for (const std::vector<std::string>* entries : {&b.rpath, &b.runpath}) {
      for (const std::string& e : *entries) {
        if (e.find('$') == std::string::npos) {
          dirs.push_back(e);
        }
      }
    }
  }
  for (const std::string& dir : dirs) {
    if (!dir.empty() && dir.front() == '/') {
      probe.probe(util::normalize_path(dir));
    }
  }
  facts.probed_paths = probe.probed();
  facts.binaries = probe.binaries();
}

} // namespace doctor::collect
