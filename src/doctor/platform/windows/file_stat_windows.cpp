// SPDX-License-Identifier: MIT
#include <doctor/platform/file_stat.hpp>
#include <doctor/platform/host_path.hpp>

#include <chrono>

namespace doctor::platform {

namespace fs = std::filesystem;

namespace {

// Windows has no inode or owner in std::filesystem; those stay 0. Permission bits are derived
// from the read-only attribute, which is all std::filesystem exposes there.
Expected<FileStat> do_stat(const fs::path& path, bool follow) {
  std::error_code ec;
  const fs::file_status st = follow ? fs::status(path, ec) : fs::symlink_status(path, ec);
  if (ec || st.type() == fs::file_type::not_found) {
    return tl::unexpected(platform::error_from(
        ec ? ec : std::make_error_code(std::errc::no_such_file_or_directory), utf8(path)));
  }
  FileStat out;
  switch (st.type()) {
  case fs::file_type::regular:
    out.kind = platform::FileKind::regular;
    out.size = fs::file_size(path, ec);
    break;
  case fs::file_type::directory:
    out.kind = platform::FileKind::directory;
    break;
  case fs::file_type::symlink:
    out.kind = platform::FileKind::symlink;
    break;
  default:
    out.kind = platform::FileKind::other;
    break;
  }
  out.mode = static_cast<std::uint32_t>(st.permissions()) & 07777U;
  const auto mtime = fs::last_write_time(path, ec);
  if (!ec) {
    out.mtime_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count();
  }
  return out;
}

} // namespace

Expected<FileStat> lstat_path(const fs::path& path) {
  return do_stat(path, false);
}

Expected<FileStat> lstat_utf8(const std::string& path) {
  return do_stat(u8path(path), false);
}

Expected<FileStat> stat_path(const fs::path& path) {
  return do_stat(path, true);
}

Expected<std::vector<platform::DirEntry>> list_dir_entries(const fs::path& path) {
  return platform::list_directory(path);
}

} // namespace doctor::platform
