// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

// The only place where std::filesystem errors and stream failures are turned into Errors.
// Everything here takes paths of the machine the doctor runs on ("host paths"); code that
// examines a machine goes through platform::SysRoot instead.
namespace doctor::platform {

enum class FileKind {
  regular,
  directory,
  symlink,
  character_device,
  block_device,
  fifo,
  socket,
  other
};

// Returns the lower-case name of `kind` ("character_device").
std::string_view to_string(FileKind kind);

struct DirEntry {
  std::string name;
  FileKind kind = FileKind::other; // of the entry itself, not following symlinks
};

// Reads at most `max_bytes` of the regular file `path` (opened as InputFile::open does, so a FIFO,
// socket or device is ErrorCode::not_regular, never waited on). Returns an error if the file cannot
// be opened or read, or ErrorCode::too_large if it is longer than `max_bytes` and `allow_truncate`
// is false.
Expected<std::string>
read_file(const std::filesystem::path& path, std::size_t max_bytes, bool allow_truncate = false);

// Lists `dir` without "." and "..", sorted by name. Returns an error if `dir` cannot be opened.
Expected<std::vector<DirEntry>> list_directory(const std::filesystem::path& dir);

// Returns the target of the symbolic link `path`. Returns an error if it is not a link.
Expected<std::string> read_symlink(const std::filesystem::path& path);

// Returns the kind of `path` without following a final symlink. Returns an error if it does not
// exist or cannot be examined.
Expected<FileKind> kind_of(const std::filesystem::path& path);

// Writes `contents` to `path`, replacing it. Returns an error if it cannot be written.
Expected<void> write_file(const std::filesystem::path& path, std::string_view contents);

// Maps a std::error_code to an Error with "`what`: <reason>" as its message: not_found,
// permission_denied, symlink_loop, resource (ENOMEM, EMFILE, ENFILE), not_regular (EISDIR), io.
Error error_from(const std::error_code& ec, std::string_view what);

} // namespace doctor::platform
