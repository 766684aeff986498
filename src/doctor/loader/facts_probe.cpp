// SPDX-License-Identifier: MIT
#include <doctor/loader/facts_probe.hpp>

namespace doctor::loader {

FactsProbe::FactsProbe(const facts::Facts& facts) {
  for (const facts::ProbedPath& p : facts.probed_paths) {
    m_probed.emplace(p.path, &p);
  }
  for (const facts::BinaryInfo& b : facts.binaries) {
    m_binaries.emplace(b.path, &b);
  }
}

const facts::BinaryInfo* FactsProbe::binary(const std::string& real_path) const {
  const auto it = m_binaries.find(real_path);
  return it == m_binaries.end() ? nullptr : it->second;
}

PathState FactsProbe::probe(const std::string& path) {
  PathState out;
  const auto it = m_probed.find(path);
  if (it == m_probed.end()) {
    out.known = false;
    return out;
  }
  const facts::ProbedPath& p = *it->second;
  out.exists = p.exists;
  out.is_dir = p.kind == "directory";
  out.kind = p.exists ? p.kind : std::string();
  out.real_path = p.real_path;
  if (p.exists && p.kind == "regular") {
    out.binary = binary(p.real_path);
  }
  return out;
}

} // namespace doctor::loader
