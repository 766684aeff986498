// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/loader/file_probe.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/version.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

// The Windows counterpart of SysRootProbe: answers the Windows loader model's questions
// (windows_path_key paths, "c:\windows\system32\x.dll") about the examined Windows machine, a live
// one or a mounted disk, through its SysRoot. Paths and binaries the facts already hold answer
// first, so a walk asks the same questions a collector asked before; every other path is looked at
// once, and can be stored back into the facts for a snapshot.
namespace doctor::collect {

class WindowsProbe final : public loader::FileProbe {
public:
  // Starts from facts.probed_paths and facts.binaries; `root` must outlive the probe.
  WindowsProbe(const platform::SysRoot& root, const facts::Facts& facts);

  // What the Windows file at key `path` is, looking at the machine if it was not seen yet.
  loader::PathState probe(const std::string& path) override;

  // Replaces facts.probed_paths and facts.binaries with everything seen.
  void store(facts::Facts& facts) const;

private:
  facts::ProbedPath look(const std::string& path);
  const facts::BinaryInfo* binary(const std::string& real_path);

  const platform::SysRoot& m_root;
  std::map<std::string, facts::ProbedPath> m_probed;
  std::map<std::string, std::unique_ptr<facts::BinaryInfo>> m_binaries; // by windows_path_key
};

// The cuDNN version of a cuDNN DLL (cudnn64_8.dll, cudnn_ops64_9.dll) from its version resource
// (FileVersion, else ProductVersion), when its major matches the file name's; nullopt otherwise.
std::optional<Version> cudnn_dll_version(const facts::BinaryInfo& binary);

} // namespace doctor::collect
