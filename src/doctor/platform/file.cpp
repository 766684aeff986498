// SPDX-License-Identifier: MIT
#include <doctor/platform/file.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/input_file.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <system_error>
#include <utility>

namespace doctor::platform {

namespace fs = std::filesystem;

namespace {

FileKind kind_from(fs::file_type type) {
  switch (type) {
  case fs::file_type::regular:
    return FileKind::regular;
  case fs::file_type::directory:
    return FileKind::directory;
  case fs::file_type::symlink:
    return FileKind::symlink;
  case fs::file_type::character:
    return FileKind::character_device;
  case fs::file_type::block:
    return FileKind::block_device;
  case fs::file_type::fifo:
    return FileKind::fifo;
  case fs::file_type::socket:
    return FileKind::socket;
  default:
    return FileKind::other;
  }
}

// The kind of a directory entry without following a final symlink. The is_* members answer from
// the type readdir() reported (d_type) where the file system gives one, so a listing costs no
// stat per entry; they fall back to a stat where it does not.
FileKind entry_kind(const fs::directory_entry& entry) {
  std::error_code ec;
  if (entry.is_symlink(ec)) {
    return FileKind::symlink;
  }
  if (ec) {
    return FileKind::other;
  }
  if (entry.is_regular_file(ec)) {
    return FileKind::regular;
  }
  if (entry.is_directory(ec)) {
    return FileKind::directory;
  }
  if (entry.is_character_file(ec)) {
    return FileKind::character_device;
  }
  if (entry.is_block_file(ec)) {
    return FileKind::block_device;
  }
  if (entry.is_fifo(ec)) {
    return FileKind::fifo;
  }
  if (entry.is_socket(ec)) {
    return FileKind::socket;
  }
  return FileKind::other;
}

} // namespace

std::string_view to_string(FileKind kind) {
  switch (kind) {
  case FileKind::regular:
    return "regular";
  case FileKind::directory:
    return "directory";
  case FileKind::symlink:
    return "symlink";
  case FileKind::character_device:
    return "character_device";
  case FileKind::block_device:
    return "block_device";
  case FileKind::fifo:
    return "fifo";
  case FileKind::socket:
    return "socket";
  case FileKind::other:
    return "other";
  }
  return "other";
}

// InputFile's members that do not depend on the platform (close() and open() do).
InputFile::InputFile(InputFile&& other) noexcept
    : m_handle(std::exchange(other.m_handle, -1))
    , m_stat(other.m_stat)
    , m_path(std::move(other.m_path)) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    close();
    m_handle = std::exchange(other.m_handle, -1);
    m_stat = other.m_stat;
    m_path = std::move(other.m_path);
  }
  return *this;
}

InputFile::~InputFile() {
  close();
}

std::intptr_t InputFile::release() {
  return std::exchange(m_handle, -1);
}

std::string_view describe(FileKind kind) {
  switch (kind) {
  case FileKind::regular:
    return "a regular file";
  case FileKind::directory:
    return "a directory";
  case FileKind::symlink:
    return "a symbolic link";
  case FileKind::character_device:
    return "a character device";
  case FileKind::block_device:
    return "a block device";
  case FileKind::fifo:
    return "a FIFO";
  case FileKind::socket:
    return "a socket";
  case FileKind::other:
    break;
  }
  return "not a regular file";
}

Error not_regular_error(std::string_view path, FileKind kind) {
  if (kind == FileKind::other) {
    return Error{ErrorCode::not_regular, fmt::format("{}: not a regular file", path)};
  }
  return Error{ErrorCode::not_regular,
               fmt::format("{}: is {}, not a regular file", path, describe(kind))};
}

Error error_from(const std::error_code& ec, std::string_view what) {
  ErrorCode code = ErrorCode::io;
  if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory
      || ec == std::errc::no_such_device || ec == std::errc::no_such_device_or_address) {
    code = ErrorCode::not_found;
  } else if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted) {
    code = ErrorCode::permission_denied;
  } else if (ec == std::errc::too_many_symbolic_link_levels) {
    code = ErrorCode::symlink_loop;
  } else if (ec == std::errc::not_enough_memory || ec == std::errc::too_many_files_open
             || ec == std::errc::too_many_files_open_in_system) {
    // A limit of the doctor's own process (RLIMIT_AS, RLIMIT_NOFILE) or of the system: nothing
    // is known about the file, which must not be called absent or damaged.
    return Error{ErrorCode::resource,
                 fmt::format("{}: {} (a resource limit of the doctor, not a fault of the file)",
                             what,
                             ec.message())};
  } else if (ec == std::errc::is_a_directory) {
    code = ErrorCode::not_regular;
  }
  return Error{code, fmt::format("{}: {}", what, ec.message())};
}

// Reads through the one open of the platform layer (InputFile): a FIFO, socket or device is
// refused before anything waits on it. Reads straight into the result in growing steps: most
// files read here (/proc, /etc, small text files) are a few hundred bytes, and /proc's files
// report a size of 0, so the size from fstat() is no guide.
Expected<std::string> read_file(const fs::path& path, std::size_t max_bytes, bool allow_truncate) {
  auto file = InputFile::open(path);
  if (!file) {
    return tl::unexpected(file.error());
  }
  std::string data;
  const std::size_t limit =
      max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1; // one more: too large?
  // A regular file says its size (one more byte finds its end in the same read); a file of
  // /proc or /sys says 0 and is read in growing steps.
  std::size_t step = std::clamp<std::uint64_t>(file->stat().size + 1, 4096, std::size_t{1} << 20U);
  while (data.size() < limit) {
    const std::size_t old = data.size();
    const std::size_t want = std::min(step, limit - old);
    data.resize(old + want);
    auto got = file->read(data.data() + old, want);
    if (!got) {
      return tl::unexpected(got.error());
    }
    data.resize(old + *got);
    if (*got == 0) {
      break; // end of file
    }
    if (*got == want) {
      step = std::min(step * 2, std::size_t{1} << 20U);
    }
  }
  if (data.size() > max_bytes) {
    if (!allow_truncate) {
      return make_error(ErrorCode::too_large,
                        fmt::format("{}: larger than {} bytes", utf8(path), max_bytes));
    }
    data.resize(max_bytes);
  }
  return data;
}

Expected<std::vector<DirEntry>> list_directory(const fs::path& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    return tl::unexpected(error_from(ec, utf8(dir)));
  }
  std::vector<DirEntry> out;
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) {
      return tl::unexpected(error_from(ec, utf8(dir)));
    }
    out.push_back(DirEntry{utf8(it->path().filename()), entry_kind(*it)});
  }
  if (ec) {
    return tl::unexpected(error_from(ec, utf8(dir)));
  }
  std::sort(
      out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

Expected<std::string> read_symlink(const fs::path& path) {
  std::error_code ec;
  auto target = fs::read_symlink(path, ec);
  if (ec) {
    return tl::unexpected(error_from(ec, utf8(path)));
  }
  return generic_utf8(target);
}

Expected<FileKind> kind_of(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::symlink_status(path, ec);
  if (ec) {
    return tl::unexpected(error_from(ec, utf8(path)));
  }
  if (status.type() == fs::file_type::not_found) {
    return make_error(ErrorCode::not_found, fmt::format("{}: no such file", utf8(path)));
  }
  return kind_from(status.type());
}

Expected<void> write_file(const fs::path& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return make_error(ErrorCode::io, fmt::format("{}: cannot open for writing", utf8(path)));
  }
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) {
    return make_error(ErrorCode::io, fmt::format("{}: write error", utf8(path)));
  }
  return {};
}

} // namespace doctor::platform
