// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/loader/file_probe.hpp>
#include <doctor/loader/windows_search.hpp>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace doctor::test {

// An in-memory Windows file system: DLLs with PE headers (and import tables) and directories,
// keyed by the case-folded, backslashed form the Windows loader model asks with.
class FakeWinFs final : public loader::FileProbe {
public:
  // Adds a DLL of `bits` importing `imports`, and its folder; returns its headers to change.
  facts::BinaryInfo& dll(const std::string& path,
                         std::vector<std::string> imports = {"KERNEL32.dll"},
                         unsigned bits = 64) {
    auto b = std::make_unique<facts::BinaryInfo>();
    b->path = path;
    b->format = "pe";
    b->bits = bits;
    b->machine = bits == 64 ? "x64" : "x86";
    b->needed = std::move(imports);
    auto& ref = *b;
    m_files[loader::windows_path_key(path)] = {path, std::move(b)};
    dir(loader::windows_parent(path));
    return ref;
  }
  void dir(const std::string& path) { m_dirs.insert(loader::windows_path_key(path)); }

  loader::PathState probe(const std::string& key) override {
    loader::PathState st;
    if (auto f = m_files.find(key); f != m_files.end()) {
      st.exists = true;
      st.real_path = f->second.first;
      st.binary = f->second.second.get();
    } else if (m_dirs.count(key) != 0) {
      st.exists = true;
      st.is_dir = true;
      st.real_path = key;
    }
    return st;
  }

private:
  std::map<std::string, std::pair<std::string, std::unique_ptr<facts::BinaryInfo>>> m_files;
  std::set<std::string> m_dirs;
};

} // namespace doctor::test
