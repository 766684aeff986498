// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/loader/file_probe.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace doctor::collect {

// Looks at the examined machine through a SysRoot, reads the headers of every file it finds,
// and records every look so that the snapshot can answer the same questions later.
class SysRootProbe final : public loader::FileProbe {
public:
  // How much of each binary found is read: everything read_binary() reads (what a snapshot
  // records), or only what the Linux loader model reads (read_loader_binary(): a tree of
  // dependencies, which records nothing).
  enum class Depth { everything, loader };

  explicit SysRootProbe(const platform::SysRoot& root, Depth depth = Depth::everything);
  loader::PathState probe(const std::string& path) override;

  // Returns the binary read for canonical `real_path` (reading it if needed), or nullptr.
  const facts::BinaryInfo* binary(const std::string& real_path);

  // Everything looked at, sorted by path.
  std::vector<facts::ProbedPath> probed() const;
  // Every binary read, sorted by path.
  std::vector<facts::BinaryInfo> binaries() const;

private:
  // binary(), for a file whose status is known, read to `depth`.
  const facts::BinaryInfo*
  binary(const std::string& real_path, const platform::FileStat* st, Depth depth);

  const platform::SysRoot& m_root;
  Depth m_depth;
  // What a look found (facts::ProbedPath without the path, which is the key, and with the mode
  // as a number: the records of a tree's thousands of looks are written out only for a snapshot).
  struct Look {
    bool exists = false;
    std::string kind;
    std::string real_path;
    std::uint32_t mode = 0;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
  };
  std::unordered_map<std::string, Look> m_probed;
  std::unordered_map<std::string, std::unique_ptr<facts::BinaryInfo>> m_binaries;
};

} // namespace doctor::collect
