// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/file.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace doctor::platform {

// What the operating system says about one file. Fields the platform cannot report are 0.
struct FileStat {
  platform::FileKind kind = platform::FileKind::other;
  std::uint64_t size = 0;
  std::uint32_t mode = 0; // permission bits (07777)
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint32_t rdev_major = 0; // device nodes only
  std::uint32_t rdev_minor = 0;
  std::int64_t mtime_ns = 0;
  // The inode's last status change (st_ctime): the kernel sets it on every write, chmod, rename
  // or utime, and no unprivileged call sets it back. 0 on Windows, whose change time any writer
  // may set.
  std::int64_t ctime_ns = 0;
};

// Returns the status of `path` itself (a symlink is not followed). Returns an error if it does not
// exist or cannot be examined.
Expected<FileStat> lstat_path(const std::filesystem::path& path);

// lstat_path() of the host path `path` written as UTF-8, without building a std::filesystem::path
// (which splits every path into components; the loader model examines thousands of paths). The
// same errors, except that on Linux a path that does not exist (ENOENT) gives not_found with no
// message: most paths a search examines are absent, and the caller restates it.
Expected<FileStat> lstat_utf8(const std::string& path);

// Returns the status of what `path` points to. Returns an error if it does not exist, is a broken
// link or a symlink loop, or cannot be examined.
Expected<FileStat> stat_path(const std::filesystem::path& path);

// Lists directory `path` without "." and "..", sorted by name, each entry's kind without following
// links. On Linux one readdir() pass that takes the kind from d_type (a stat only where the file
// system gives none); elsewhere platform::list_directory. Returns an error if `path` cannot be
// opened.
Expected<std::vector<platform::DirEntry>> list_dir_entries(const std::filesystem::path& path);

} // namespace doctor::platform
