// SPDX-License-Identifier: MIT
#include <doctor/platform/file_stat.hpp>
#include <doctor/platform/linux/posix_stat.hpp>

#include <fmt/format.h>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace doctor::platform {

namespace {

platform::FileKind kind_from_mode(mode_t mode) {
  switch (mode & S_IFMT) {
  case S_IFREG:
    return platform::FileKind::regular;
  case S_IFDIR:
    return platform::FileKind::directory;
  case S_IFLNK:
    return platform::FileKind::symlink;
  case S_IFCHR:
    return platform::FileKind::character_device;
  case S_IFBLK:
    return platform::FileKind::block_device;
  case S_IFIFO:
    return platform::FileKind::fifo;
  case S_IFSOCK:
    return platform::FileKind::socket;
  default:
    return platform::FileKind::other;
  }
}

} // namespace

FileStat file_stat_from(const struct stat& st) {
  FileStat out;
  out.kind = kind_from_mode(st.st_mode);
  out.size = static_cast<std::uint64_t>(st.st_size);
  out.mode = st.st_mode & 07777;
  out.uid = st.st_uid;
  out.gid = st.st_gid;
  out.device = st.st_dev;
  out.inode = st.st_ino;
  out.rdev_major = major(st.st_rdev);
  out.rdev_minor = minor(st.st_rdev);
  out.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  out.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000LL + st.st_ctim.tv_nsec;
  return out;
}

namespace {

Expected<FileStat> do_stat(const std::string& path, bool follow) {
  struct stat st {};
  const int rc = follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st);
  if (rc != 0) {
    return tl::unexpected(
        platform::error_from(std::error_code(errno, std::generic_category()), path));
  }
  return file_stat_from(st);
}

} // namespace

Expected<FileStat> lstat_path(const std::filesystem::path& path) {
  return do_stat(path.native(), false);
}

Expected<FileStat> lstat_utf8(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    return file_stat_from(st);
  }
  if (errno == ENOENT) {
    return tl::unexpected(Error{ErrorCode::not_found, {}}); // the caller restates it
  }
  return tl::unexpected(
      platform::error_from(std::error_code(errno, std::generic_category()), path));
}

Expected<FileStat> stat_path(const std::filesystem::path& path) {
  return do_stat(path.native(), true);
}

Expected<std::vector<platform::DirEntry>> list_dir_entries(const std::filesystem::path& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) {
    return tl::unexpected(
        platform::error_from(std::error_code(errno, std::generic_category()), path.string()));
  }
  std::vector<platform::DirEntry> out;
  errno = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
      continue;
    }
    platform::DirEntry entry{e->d_name, platform::FileKind::other};
    switch (e->d_type) {
    case DT_REG:
      entry.kind = platform::FileKind::regular;
      break;
    case DT_DIR:
      entry.kind = platform::FileKind::directory;
      break;
    case DT_LNK:
      entry.kind = platform::FileKind::symlink;
      break;
    case DT_CHR:
      entry.kind = platform::FileKind::character_device;
      break;
    case DT_BLK:
      entry.kind = platform::FileKind::block_device;
      break;
    case DT_FIFO:
      entry.kind = platform::FileKind::fifo;
      break;
    case DT_SOCK:
      entry.kind = platform::FileKind::socket;
      break;
    default: // DT_UNKNOWN: the file system does not say
      if (auto st = lstat_path(path / entry.name)) {
        entry.kind = st->kind;
      }
      break;
    }
    out.push_back(std::move(entry));
    errno = 0;
  }
  const int err = errno;
  ::closedir(dir);
  if (err != 0) {
    return tl::unexpected(
        platform::error_from(std::error_code(err, std::generic_category()), path.string()));
  }
  std::sort(out.begin(), out.end(), [](const platform::DirEntry& a, const platform::DirEntry& b) {
    return a.name < b.name;
  });
  return out;
}

} // namespace doctor::platform
