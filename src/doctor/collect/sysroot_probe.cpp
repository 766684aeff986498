// SPDX-License-Identifier: MIT
#include <doctor/collect/binary_reader.hpp>
#include <doctor/collect/sysroot_probe.hpp>

#include <fmt/format.h>

namespace doctor::collect {

SysRootProbe::SysRootProbe(const platform::SysRoot& root)
    : m_root(root) {}

const facts::BinaryInfo* SysRootProbe::binary(const std::string& real_path) {
  auto it = m_binaries.find(real_path);
  if (it == m_binaries.end()) {
    it = m_binaries
             .emplace(real_path,
                      std::make_unique<facts::BinaryInfo>(collect::read_binary(m_root, real_path)))
             .first;
  }
  return it->second.get();
}

loader::PathState SysRootProbe::probe(const std::string& path) {
  auto it = m_probed.find(path);
  if (it == m_probed.end()) {
    facts::ProbedPath p;
    p.path = path;
    auto lst = m_root.lstat(path);
    if (lst) {
      p.kind = std::string(platform::to_string(lst->kind));
      if (auto real = m_root.resolve(path)) {
        p.real_path = *real;
        // Only a link needs a second look, at the file it leads to (whose folder resolve() has
        // just seen): for anything else, what lstat saw is what stat sees.
        if (auto st = lst->kind == platform::FileKind::symlink ? m_root.lstat(*real) : lst) {
          p.exists = true;
          p.kind = std::string(platform::to_string(st->kind));
          p.mode = fmt::format("{:04o}", st->mode & 07777U);
          p.uid = st->uid;
          p.gid = st->gid;
        }
      }
    }
    it = m_probed.emplace(path, std::move(p)).first;
  }
  const facts::ProbedPath& p = it->second;
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

std::vector<facts::ProbedPath> SysRootProbe::probed() const {
  std::vector<facts::ProbedPath> out;
  out.reserve(m_probed.size());
  for (const auto& [path, p] : m_probed) {
    out.push_back(p);
  }
  return out;
}

std::vector<facts::BinaryInfo> SysRootProbe::binaries() const {
  std::vector<facts::BinaryInfo> out;
  out.reserve(m_binaries.size());
  for (const auto& [path, b] : m_binaries) {
    out.push_back(*b);
  }
  return out;
}

} // namespace doctor::collect
