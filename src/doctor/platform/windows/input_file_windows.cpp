// SPDX-License-Identifier: MIT
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <algorithm>
#include <utility>

namespace doctor::platform {

namespace {

HANDLE handle_of(std::intptr_t h) {
  return reinterpret_cast<HANDLE>(h); // NOLINT: a HANDLE kept as an integer
}

} // namespace

// Windows has no character device the doctor reads (its event logs go through the event log
// API), so `accept` changes nothing here: windows::open_for_reading takes only FILE_TYPE_DISK.
Expected<InputFile> InputFile::open(const std::filesystem::path& path, Accept) {
  auto opened = windows::open_for_reading(path);
  if (!opened) {
    return tl::unexpected(opened.error());
  }
  InputFile out;
  out.m_handle = reinterpret_cast<std::intptr_t>(*opened); // NOLINT: see handle_of
  out.m_path = path;
  BY_HANDLE_FILE_INFORMATION info{};
  if (GetFileInformationByHandle(handle_of(out.m_handle), &info) == 0) {
    return make_error(
        ErrorCode::io,
        fmt::format("{}: cannot read its status (error {})", utf8(path), GetLastError()));
  }
  out.m_stat.kind = FileKind::regular;
  out.m_stat.size = (std::uint64_t{info.nFileSizeHigh} << 32U) | info.nFileSizeLow;
  out.m_stat.device = info.dwVolumeSerialNumber;
  out.m_stat.inode = (std::uint64_t{info.nFileIndexHigh} << 32U) | info.nFileIndexLow;
  out.m_stat.mode = (info.dwFileAttributes & FILE_ATTRIBUTE_READONLY) != 0 ? 0444U : 0666U;
  return out;
}

void InputFile::close() {
  if (m_handle != -1) {
    CloseHandle(handle_of(m_handle));
    m_handle = -1;
  }
}

Expected<std::size_t> InputFile::read(char* buffer, std::size_t size) {
  DWORD n = 0;
  const auto want = static_cast<DWORD>(std::min<std::size_t>(size, 1U << 30U));
  if (ReadFile(handle_of(m_handle), buffer, want, &n, nullptr) == 0) {
    return make_error(ErrorCode::io,
                      fmt::format("{}: read error {}", utf8(m_path), GetLastError()));
  }
  return static_cast<std::size_t>(n);
}

Expected<std::size_t> InputFile::read_at(std::uint64_t offset, char* buffer, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    OVERLAPPED at{};
    const std::uint64_t pos = offset + done;
    at.Offset = static_cast<DWORD>(pos & 0xFFFFFFFFU);
    at.OffsetHigh = static_cast<DWORD>(pos >> 32U);
    DWORD n = 0;
    const auto want = static_cast<DWORD>(std::min<std::size_t>(size - done, 1U << 30U));
    if (ReadFile(handle_of(m_handle), buffer + done, want, &n, &at) == 0) {
      const DWORD err = GetLastError();
      if (err == ERROR_HANDLE_EOF) {
        break;
      }
      return make_error(ErrorCode::io, fmt::format("{}: read error {}", utf8(m_path), err));
    }
    if (n == 0) {
      break;
    }
    done += n;
  }
  return done;
}

} // namespace doctor::platform
