// SPDX-License-Identifier: MIT
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/linux/fd.hpp>
#include <doctor/platform/linux/posix_stat.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace doctor::platform {

namespace {

constexpr int k_read_flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

Error errno_error_at(int err, const std::filesystem::path& path) {
  return error_from(std::error_code(err, std::generic_category()), path.string());
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Opens a regular file for reading without ever opening anything else. O_PATH resolves the path
// and pins the inode without calling a driver's open() or waiting for a FIFO's writer; fstat() on
// it says what the inode is. Only a regular file is then opened for reading, through the pinned
// inode's /proc/self/fd link (the kernel checks read permission there as on the file itself), so
// the file read is the file checked. Without /proc (a bare chroot) the path is opened again and
// must still be the same inode.
Expected<Fd> open_regular(const std::filesystem::path& path, struct stat& st) {
  const Fd pinned(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!pinned) {
    return tl::unexpected(errno_error_at(errno, path));
  }
  struct stat before {};
  if (::fstat(pinned.get(), &before) != 0) {
    return tl::unexpected(errno_error_at(errno, path));
  }
  if (!S_ISREG(before.st_mode)) {
    return tl::unexpected(not_regular_error(path.string(), file_stat_from(before).kind));
  }
  const std::string link = fmt::format("/proc/self/fd/{}", pinned.get());
  Fd fd(::open(link.c_str(), k_read_flags));
  if (!fd && errno == ENOENT) {
    fd = Fd(::open(path.c_str(), k_read_flags));
  }
  if (!fd) {
    return tl::unexpected(errno_error_at(errno, path));
  }
  if (::fstat(fd.get(), &st) != 0) {
    return tl::unexpected(errno_error_at(errno, path));
  }
  if (!S_ISREG(st.st_mode) || !same_file(st, before)) {
    return make_error(
        ErrorCode::io,
        fmt::format("{}: replaced by another file while it was opened", path.string()));
  }
  return fd;
}

// A device the caller named: opened directly, without blocking and without becoming the
// controlling terminal, and checked on the descriptor.
Expected<Fd> open_device(const std::filesystem::path& path, struct stat& st) {
  Fd fd(::open(path.c_str(), k_read_flags));
  if (!fd) {
    return tl::unexpected(errno_error_at(errno, path));
  }
  if (::fstat(fd.get(), &st) != 0) {
    return tl::unexpected(errno_error_at(errno, path));
  }
  if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
    return tl::unexpected(not_regular_error(path.string(), file_stat_from(st).kind));
  }
  return fd;
}

} // namespace

Expected<InputFile> InputFile::open(const std::filesystem::path& path, Accept accept) {
  struct stat st {};
  auto fd = accept == Accept::character_device ? open_device(path, st) : open_regular(path, st);
  if (!fd) {
    return tl::unexpected(fd.error());
  }
  InputFile out;
  out.m_handle = fd->release();
  out.m_stat = file_stat_from(st);
  out.m_path = path;
  return out;
}

void InputFile::close() {
  if (m_handle >= 0) {
    ::close(static_cast<int>(m_handle));
    m_handle = -1;
  }
}

Expected<std::size_t> InputFile::read(char* buffer, std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(static_cast<int>(m_handle), buffer, size);
    if (n >= 0) {
      return static_cast<std::size_t>(n);
    }
    if (errno == EINTR) {
      continue;
    }
    if (errno == EAGAIN) {
      return 0; // a device with nothing more to give now
    }
    return tl::unexpected(errno_error_at(errno, m_path));
  }
}

Expected<std::size_t> InputFile::read_at(std::uint64_t offset, char* buffer, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(
        static_cast<int>(m_handle), buffer + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return tl::unexpected(errno_error_at(errno, m_path));
    }
    if (n == 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  return done;
}

} // namespace doctor::platform
