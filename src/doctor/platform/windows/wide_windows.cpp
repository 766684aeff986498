// SPDX-License-Identifier: MIT
#include <doctor/platform/windows/wide.hpp>

#include <windows.h>

namespace doctor::platform::windows {

std::wstring widen(std::string_view s) {
  if (s.empty()) {
    return {};
  }
  const int n = MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
  std::wstring out(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), out.data(), n);
  return out;
}

std::string narrow(std::wstring_view s) {
  if (s.empty()) {
    return {};
  }
  const int n = WideCharToMultiByte(
      CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0, nullptr, nullptr);
  std::string out(static_cast<std::size_t>(n), '\0');
  WideCharToMultiByte(
      CP_UTF8, 0, s.data(), static_cast<int>(s.size()), out.data(), n, nullptr, nullptr);
  return out;
}

std::string last_error_message(unsigned long code) {
  wchar_t* buffer = nullptr;
  const DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM
                                     | FORMAT_MESSAGE_IGNORE_INSERTS,
                                 nullptr,
                                 code,
                                 0,
                                 reinterpret_cast<wchar_t*>(&buffer),
                                 0,
                                 nullptr);
  std::string out = n > 0 ? narrow(std::wstring_view(buffer, n)) : std::string();
  if (buffer != nullptr) {
    LocalFree(buffer);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) {
    out.pop_back();
  }
  if (out.empty()) {
    out = "error " + std::to_string(code);
  }
  return out;
}

} // namespace doctor::platform::windows
