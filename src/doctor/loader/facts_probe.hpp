// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/loader/file_probe.hpp>
#include <doctor/model/facts.hpp>

#include <string>
#include <unordered_map>

namespace doctor::loader {

// Answers from a snapshot: the paths and binaries a SysRootProbe recorded. A path it never
// recorded is "not known" rather than absent.
class FactsProbe final : public FileProbe {
public:
  explicit FactsProbe(const facts::Facts& facts);
  PathState probe(const std::string& path) override;
  const facts::BinaryInfo* binary(const std::string& real_path) const;

private:
  std::unordered_map<std::string, const facts::ProbedPath*> m_probed;
  std::unordered_map<std::string, const facts::BinaryInfo*> m_binaries;
};

} // namespace doctor::loader
