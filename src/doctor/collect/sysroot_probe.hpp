// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/loader/file_probe.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace doctor::collect {

// Looks at the examined machine through a SysRoot, reads the headers of every file it finds,
// and records every look so that the snapshot can answer the same questions later.
class SysRootProbe final : public loader::FileProbe {
public:
  explicit SysRootProbe(const platform::SysRoot& root);
  loader::PathState probe(const std::string& path) override;

  // Returns the binary read for canonical `real_path` (reading it if needed), or nullptr.
  const facts::BinaryInfo* binary(const std::string& real_path);

  // Everything looked at, sorted by path.
  std::vector<facts::ProbedPath> probed() const;
  // Every binary read, sorted by path.
  std::vector<facts::BinaryInfo> binaries() const;

private:
  const platform::SysRoot& m_root;
  std::map<std::string, facts::ProbedPath> m_probed;
  std::map<std::string, std::unique_ptr<facts::BinaryInfo>> m_binaries;
};

} // namespace doctor::collect
