// SPDX-License-Identifier: MIT
#include <doctor/platform/dynlib.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <utility>

namespace doctor::platform {

Expected<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  HMODULE handle = LoadLibraryExW(windows::widen(name).c_str(), nullptr, 0);
  if (handle == nullptr) {
    const DWORD code = GetLastError();
    return make_error(
        ErrorCode::not_found,
        fmt::format("{}: LoadLibrary error {}: {}", name, code, windows::last_error_message(code)));
  }
  DynamicLibrary lib;
  lib.m_handle = handle;
  lib.m_name = name;
  return lib;
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr))
    , m_name(std::move(other.m_name)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (m_handle != nullptr) {
      FreeLibrary(static_cast<HMODULE>(m_handle));
    }
    m_handle = std::exchange(other.m_handle, nullptr);
    m_name = std::move(other.m_name);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (m_handle != nullptr) {
    FreeLibrary(static_cast<HMODULE>(m_handle));
  }
}

void* DynamicLibrary::symbol(const char* symbol) const {
  if (m_handle == nullptr) {
    return nullptr;
  }
  return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(m_handle), symbol));
}

std::string DynamicLibrary::path() const {
  wchar_t buf[MAX_PATH * 2];
  const DWORD n = GetModuleFileNameW(static_cast<HMODULE>(m_handle), buf, MAX_PATH * 2);
  return n > 0 ? windows::narrow(std::wstring_view(buf, n)) : m_name;
}

} // namespace doctor::platform
