// SPDX-License-Identifier: MIT
#include <doctor/platform/file.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>

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

Error error_from(const std::error_code& ec, std::string_view what) {
  ErrorCode code = ErrorCode::io;
  if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) {
    code = ErrorCode::not_found;
  } else if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted) {
    code = ErrorCode::permission_denied;
  } else if (ec == std::errc::too_many_symbolic_link_levels) {
    code = ErrorCode::symlink_loop;
  }
  return Error{code, fmt::format("{}: {}", what, ec.message())};
}

Expected<std::string> read_file(const fs::path& path, std::size_t max_bytes, bool allow_truncate) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec) {
    return tl::unexpected(error_from(ec, path.string()));
  }
  if (fs::is_directory(status)) {
    return make_error(ErrorCode::io, fmt::format("{}: is a directory", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // The stream hides errno; a file that exists but cannot be opened is almost always a
    // permission problem.
    return make_error(ErrorCode::permission_denied,
                      fmt::format("{}: cannot open for reading", path.string()));
  }
  // Read straight into the result in growing steps: most files read here (/proc, /etc, small
  // text files) are a few hundred bytes, and a fixed 64 KiB buffer cost more to clear than to use.
  std::string data;
  std::size_t step = 4096;
  const std::size_t limit =
      max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1; // one more: too large?
  while (data.size() < limit) {
    const std::size_t old = data.size();
    const std::size_t want = std::min(step, limit - old);
    data.resize(old + want);
    in.read(data.data() + old, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    data.resize(old + got);
    if (got < want) {
      break; // end of file (or an error, checked below)
    }
    step = std::min(step * 2, std::size_t{1} << 20U);
  }
  if (data.size() > max_bytes) {
    if (!allow_truncate) {
      return make_error(ErrorCode::too_large,
                        fmt::format("{}: larger than {} bytes", path.string(), max_bytes));
    }
    data.resize(max_bytes);
    return data;
  }
  if (in.bad()) {
    return make_error(ErrorCode::io, fmt::format("{}: read error", path.string()));
  }
  return data;
}

Expected<std::vector<DirEntry>> list_directory(const fs::path& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    return tl::unexpected(error_from(ec, dir.string()));
  }
  std::vector<DirEntry> out;
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) {
      return tl::unexpected(error_from(ec, dir.string()));
    }
    out.push_back(DirEntry{it->path().filename().string(), entry_kind(*it)});
  }
  if (ec) {
    return tl::unexpected(error_from(ec, dir.string()));
  }
  std::sort(
      out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

Expected<std::string> read_symlink(const fs::path& path) {
  std::error_code ec;
  auto target = fs::read_symlink(path, ec);
  if (ec) {
    return tl::unexpected(error_from(ec, path.string()));
  }
  return target.generic_string();
}

Expected<FileKind> kind_of(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::symlink_status(path, ec);
  if (ec) {
    return tl::unexpected(error_from(ec, path.string()));
  }
  if (status.type() == fs::file_type::not_found) {
    return make_error(ErrorCode::not_found, fmt::format("{}: no such file", path.string()));
  }
  return kind_from(status.type());
}

Expected<void> write_file(const fs::path& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return make_error(ErrorCode::io, fmt::format("{}: cannot open for writing", path.string()));
  }
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) {
    return make_error(ErrorCode::io, fmt::format("{}: write error", path.string()));
  }
  return {};
}

} // namespace doctor::platform
