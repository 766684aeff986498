// SPDX-License-Identifier: MIT
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <utility>

namespace doctor::platform {

Expected<MappedFile> MappedFile::open(const std::filesystem::path& path) {
  auto opened = windows::open_for_reading(path);
  if (!opened) {
    return tl::unexpected(opened.error());
  }
  HANDLE file = *opened;
  LARGE_INTEGER size{};
  if (GetFileSizeEx(file, &size) == 0) {
    CloseHandle(file);
    return make_error(ErrorCode::io, fmt::format("{}: cannot read its size", utf8(path)));
  }
  MappedFile out;
  out.m_size = static_cast<std::size_t>(size.QuadPart);
  if (out.m_size > 0) {
    HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (mapping == nullptr) {
      CloseHandle(file);
      return make_error(ErrorCode::io, fmt::format("{}: cannot map", utf8(path)));
    }
    out.m_data = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    if (out.m_data == nullptr) {
      CloseHandle(mapping);
      CloseHandle(file);
      return make_error(ErrorCode::io, fmt::format("{}: cannot map", utf8(path)));
    }
    out.m_handle = mapping;
  }
  CloseHandle(file);
  return out;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_size(std::exchange(other.m_size, 0))
    , m_handle(std::exchange(other.m_handle, nullptr)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
    m_handle = std::exchange(other.m_handle, nullptr);
  }
  return *this;
}

MappedFile::~MappedFile() {
  release();
}

void MappedFile::release() {
  if (m_data != nullptr) {
    UnmapViewOfFile(m_data);
    m_data = nullptr;
  }
  if (m_handle != nullptr) {
    CloseHandle(m_handle);
    m_handle = nullptr;
  }
}

} // namespace doctor::platform
