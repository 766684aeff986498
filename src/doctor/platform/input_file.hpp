// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/file.hpp>
#include <doctor/platform/file_stat.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <filesystem>
#include <string_view>

// The one way the doctor opens a file to read it. read_file, MappedFile, PositionedFile and
// hash_file all open through here, so every read of a file has the same contract: what is read is
// a regular file, checked on the opened handle itself (no race between a check and the open), and
// a FIFO, socket or device where a file was expected is an error that says what it is, never a
// read that blocks forever or a device driver's open() run by accident.
namespace doctor::platform {

// What an open accepts besides a regular file. The doctor reads exactly one file that is not
// regular: the kernel's message buffer, /dev/kmsg (platform/kmsg.hpp), a character device. The
// files of /proc and /sys it reads are regular files to fstat(), so they need no exception.
enum class Accept {
  regular_file,
  character_device, // a device named by the caller (/dev/kmsg), opened without blocking
};

// Returns "a FIFO", "a socket", "a character device", "a block device", "a directory",
// "a symbolic link", "a regular file" or "not a regular file" (other).
std::string_view describe(FileKind kind);

// Returns ErrorCode::not_regular with "`path`: is a FIFO, not a regular file" (as describe()).
Error not_regular_error(std::string_view path, FileKind kind);

// A file opened for reading, closed by the destructor.
//
// Linux: the path is first opened with O_PATH, which runs no driver's open() and does not wait for
// a FIFO's writer, and fstat()ed; only a regular file is then opened for reading, through that same
// descriptor (/proc/self/fd/N), with O_NONBLOCK | O_NOCTTY | O_CLOEXEC, and fstat()ed again. So a
// device node in an examined tree is never opened, and what is read is the file that was checked.
// Windows: CreateFileW, then GetFileType() must say FILE_TYPE_DISK (not a pipe, console or other
// character device such as NUL or COM1).
class InputFile {
public:
  // Opens `path`. Returns ErrorCode::not_regular if it is anything but a regular file (unless
  // `accept` allows a character device), not_found, permission_denied, resource (out of memory
  // or file descriptors: EMFILE, ENFILE, ENOMEM), or io, each naming `path`.
  static Expected<InputFile> open(const std::filesystem::path& path,
                                  Accept accept = Accept::regular_file);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  // The status of the opened file (kind, size, owner, mode), from the handle.
  const FileStat& stat() const { return m_stat; }

  // Reads up to `size` bytes at the current position. Returns 0 at the end of the file, or an
  // error naming the path (a device opened without blocking: 0 where it has nothing to give).
  Expected<std::size_t> read(char* buffer, std::size_t size);

  // Reads up to `size` bytes at `offset` without moving the position (pread; ReadFile at an
  // offset). Returns fewer bytes only at the end of the file, or an error naming the path.
  Expected<std::size_t> read_at(std::uint64_t offset, char* buffer, std::size_t size);

  // The descriptor (Linux) or HANDLE (Windows), still owned by this object.
  std::intptr_t native() const { return m_handle; }

  // Gives up the descriptor or HANDLE, which the caller must close.
  std::intptr_t release();

  const std::filesystem::path& path() const { return m_path; }

private:
  InputFile() = default;
  void close();
  std::intptr_t m_handle = -1; // -1: none (INVALID_HANDLE_VALUE on Windows is -1 too)
  FileStat m_stat;
  std::filesystem::path m_path;
};

} // namespace doctor::platform
