// SPDX-License-Identifier: MIT
#include <doctor/collect/binary_reader.hpp>
#include <doctor/collect/sysroot_probe.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

SysRootProbe::SysRootProbe(const platform::SysRoot& root, Depth depth)
    : m_root(root)
    , m_depth(depth) {}

const facts::BinaryInfo* SysRootProbe::binary(const std::string& real_path) {
  return binary(real_path, nullptr, m_depth);
}

const facts::BinaryInfo*
SysRootProbe::binary(const std::string& real_path, const platform::FileStat* st, Depth depth) {
  auto it = m_binaries.find(real_path);
  if (it == m_binaries.end()) {
    facts::BinaryInfo b = depth == Depth::loader && st != nullptr
                              ? read_loader_binary(m_root, real_path, *st)
                              : read_binary(m_root, real_path);
    it = m_binaries.emplace(real_path, std::make_unique<facts::BinaryInfo>(std::move(b))).first;
  }
  return it->second.get();
}

loader::PathState SysRootProbe::probe(const std::string& path) {
  auto it = m_probed.find(path);
  std::optional<platform::FileStat> target; // of a regular file met now: what read_binary reads
  if (it == m_probed.end()) {
    Look p;
    auto lst = m_root.lstat_resolved(path);
    if (lst) {
      p.kind = std::string(platform::to_string(lst->stat.kind));
      // lstat_resolved() names the real path of anything but a link; a link's is resolved.
      auto real = lst->real_path.empty() ? m_root.resolve(path)
                                         : Expected<std::string>(std::move(lst->real_path));
      if (real) {
        p.real_path = std::move(*real);
        // Only a link needs a second look, at the file it leads to (whose folder resolve() has
        // just seen): for anything else, what lstat saw is what stat sees.
        auto st = lst->stat.kind == platform::FileKind::symlink
                      ? m_root.lstat(p.real_path)
                      : Expected<platform::FileStat>(lst->stat);
        if (st) {
          p.exists = true;
          p.kind = std::string(platform::to_string(st->kind));
          p.mode = st->mode & 07777U;
          p.uid = st->uid;
          p.gid = st->gid;
          target = *st;
        }
      }
    }
    it = m_probed.emplace(path, std::move(p)).first;
  }
  const Look& p = it->second;
  loader::PathState out;
  out.exists = p.exists;
  out.is_dir = p.kind == "directory";
  out.kind = p.exists ? p.kind : std::string();
  out.real_path = p.real_path;
  if (p.exists && p.kind == "regular") {
    out.binary = binary(p.real_path, target ? &*target : nullptr, m_depth);
  }
  return out;
}

std::vector<facts::ProbedPath> SysRootProbe::probed() const {
  std::vector<facts::ProbedPath> out;
  out.reserve(m_probed.size());
  for (const auto& [path, look] : m_probed) {
    facts::ProbedPath p;
    p.path = path;
    p.exists = look.exists;
    p.kind = look.kind;
    p.real_path = look.real_path;
    if (look.exists) {
      p.mode = fmt::format("{:04o}", look.mode);
      p.uid = look.uid;
      p.gid = look.gid;
    }
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const facts::ProbedPath& a, const facts::ProbedPath& b) {
    return a.path < b.path;
  });
  return out;
}

std::vector<facts::BinaryInfo> SysRootProbe::binaries() const {
  std::vector<facts::BinaryInfo> out;
  out.reserve(m_binaries.size());
  for (const auto& [path, b] : m_binaries) {
    out.push_back(*b);
  }
  std::sort(out.begin(), out.end(), [](const facts::BinaryInfo& a, const facts::BinaryInfo& b) {
    return a.path < b.path;
  });
  return out;
}

} // namespace doctor::collect
