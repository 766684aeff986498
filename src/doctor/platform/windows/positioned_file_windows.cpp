// SPDX-License-Identifier: MIT
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/positioned_file.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <algorithm>

namespace doctor::platform {

Expected<std::unique_ptr<PositionedFile>> PositionedFile::open(const std::filesystem::path& path) {
  auto opened = windows::open_for_reading(path);
  if (!opened) {
    return tl::unexpected(opened.error());
  }
  HANDLE file = *opened;
  LARGE_INTEGER size{};
  if (GetFileSizeEx(file, &size) == 0) { // open_for_reading took only a file on a disk
    CloseHandle(file);
    return make_error(ErrorCode::io, fmt::format("{}: cannot read its size", utf8(path)));
  }
  std::unique_ptr<PositionedFile> out(new PositionedFile());
  out->m_handle = reinterpret_cast<std::intptr_t>(file);
  out->m_size = static_cast<std::uint64_t>(size.QuadPart);
  return out;
}

PositionedFile::~PositionedFile() {
  if (m_handle != -1) {
    CloseHandle(reinterpret_cast<HANDLE>(m_handle));
  }
}

std::string_view PositionedFile::read(std::uint64_t offset, std::size_t length) {
  if (offset >= m_size) {
    return {};
  }
  length = static_cast<std::size_t>(std::min<std::uint64_t>(length, m_size - offset));
  m_buffer.resize(length);
  std::size_t done = 0;
  while (done < length) {
    OVERLAPPED at{};
    const std::uint64_t pos = offset + done;
    at.Offset = static_cast<DWORD>(pos & 0xFFFFFFFFU);
    at.OffsetHigh = static_cast<DWORD>(pos >> 32U);
    DWORD n = 0;
    const auto want = static_cast<DWORD>(std::min<std::size_t>(length - done, 1U << 30U));
    if (ReadFile(reinterpret_cast<HANDLE>(m_handle), m_buffer.data() + done, want, &n, &at) == 0
        || n == 0) {
      break;
    }
    done += n;
  }
  return std::string_view(m_buffer).substr(0, done);
}

} // namespace doctor::platform
