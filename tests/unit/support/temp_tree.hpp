// SPDX-License-Identifier: MIT
#pragma once

// Fake machine trees for unit tests: a temporary directory that a test fills with files, links and
// libraries, then examines through a platform::SysRoot. Nothing here reads the host machine.

#include <doctor/platform/environment.hpp>
#include <doctor/platform/sysroot.hpp>

#include <gtest/gtest.h>

#include <stdlib.h> // mkdtemp
#include <unistd.h> // geteuid

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace doctor::test {

// Creates directory `dir` and its parents. Throws if it cannot, which fails the calling test.
inline void mkdirs(const std::filesystem::path& dir) {
  if (!dir.empty()) {
    std::filesystem::create_directories(dir);
  }
}

// Writes `contents` to host file `path` (creating its parent directories), replacing it. Throws if
// it cannot be written.
inline void write_file(const std::filesystem::path& path, std::string_view contents) {
  mkdirs(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) {
    throw std::runtime_error("cannot write test file " + path.string());
  }
}

// Creates the symbolic link `link` -> `target` (target kept as written; it need not exist),
// creating the link's parent directories. Throws if it cannot.
inline void make_symlink(const std::string& target, const std::filesystem::path& link) {
  mkdirs(link.parent_path());
  std::filesystem::create_symlink(target, link);
}

// True if a gcc that can build shared objects is on PATH.
inline bool gcc_available() {
  static const bool k_available = std::system("gcc --version >/dev/null 2>&1") == 0;
  return k_available;
}

// Builds a real, empty ELF shared object at host path `path` with DT_SONAME `soname`, using the
// system gcc. Returns false if gcc is missing or fails; callers GTEST_SKIP then.
inline bool make_elf_library(const std::filesystem::path& path, const std::string& soname) {
  const std::string out = path.string();
  if (!gcc_available() || out.find('\'') != std::string::npos
      || soname.find_first_of("' ,") != std::string::npos) {
    return false;
  }
  mkdirs(path.parent_path());
  const std::string command = "gcc -shared -fPIC -Wl,-soname," + soname + " -o '" + out
                              + "' -x c /dev/null >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

// True when the tests run as root, where permission bits do not stop reads.
inline bool running_as_root() {
  return ::geteuid() == 0;
}

// Returns a SysRoot for the fake tree at host directory `root`: Linux, not live, with exactly the
// environment variables `env`.
inline platform::SysRoot fake_root(const std::filesystem::path& root,
                                   std::map<std::string, std::string> env = {}) {
  return platform::SysRoot(
      root, platform::Environment(std::move(env)), platform::OsFamily::linux, /*live=*/false);
}

// A unique directory under ::testing::TempDir() (or /tmp), removed when the test passes and kept,
// with its path printed, when it fails, so the tree can be inspected.
class TempDir {
public:
  TempDir() {
    std::string base = ::testing::TempDir();
    if (base.empty()) {
      base = "/tmp/";
    }
    if (base.back() != '/') {
      base += '/';
    }
    std::string templ = base + "cudnn-doctor-test-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary directory under " + base);
    }
    m_path = std::filesystem::weakly_canonical(templ);
  }

  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  ~TempDir() {
    if (::testing::Test::HasFailure()) {
      std::cerr << "[ temp dir ] kept " << m_path.string() << '\n';
      return;
    }
    make_writable(m_path);
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }

  // The directory on the host.
  const std::filesystem::path& path() const { return m_path; }

  // The host path of `inner` ("/etc/os-release") inside this directory.
  std::filesystem::path at(std::string_view inner) const {
    while (!inner.empty() && inner.front() == '/') {
      inner.remove_prefix(1);
    }
    return inner.empty() ? m_path : m_path / std::filesystem::path(inner);
  }

  // Writes file `inner` with `contents`, creating directories.
  void write(std::string_view inner, std::string_view contents) const {
    write_file(at(inner), contents);
  }

  // Creates the link `inner` -> `target`, creating directories.
  void link(const std::string& target, std::string_view inner) const {
    make_symlink(target, at(inner));
  }

  // Creates directory `inner` and its parents.
  void mkdir(std::string_view inner) const { mkdirs(at(inner)); }

  // A SysRoot whose "/" is this directory.
  platform::SysRoot sysroot(std::map<std::string, std::string> env = {}) const {
    return fake_root(m_path, std::move(env));
  }

private:
  // Gives the owner full access to every directory below `dir`, so that a test that removed
  // permissions cannot make the cleanup fail.
  static void make_writable(const std::filesystem::path& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(std::filesystem::symlink_status(dir, ec))) {
      return;
    }
    std::filesystem::permissions(
        dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      make_writable(it->path());
    }
  }

  std::filesystem::path m_path;
};

} // namespace doctor::test
