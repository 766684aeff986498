// SPDX-License-Identifier: MIT
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

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

Expected<void*> open_for_reading(const std::filesystem::path& path, bool sequential) {
  HANDLE file =
      CreateFileW(path.wstring().c_str(),
                  GENERIC_READ,
                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                  nullptr,
                  OPEN_EXISTING,
                  FILE_ATTRIBUTE_NORMAL | (sequential ? FILE_FLAG_SEQUENTIAL_SCAN : DWORD{0}),
                  nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    const DWORD err = GetLastError();
    ErrorCode code = ErrorCode::io;
    switch (err) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
      code = ErrorCode::not_found;
      break;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
      code = ErrorCode::permission_denied;
      break;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_TOO_MANY_OPEN_FILES:
    case ERROR_NO_SYSTEM_RESOURCES:
    case ERROR_COMMITMENT_LIMIT:
      code = ErrorCode::resource;
      break;
    default:
      break;
    }
    return make_error(code, fmt::format("{}: cannot open (error {})", utf8(path), err));
  }
  // The same contract as Linux (platform/input_file.hpp): only a file on a disk is read. A pipe,
  // the console, or a DOS device name that CreateFileW opens in any folder (NUL, CON, COM1)
  // is refused here, before anything reads from it.
  const DWORD type = GetFileType(file);
  if (type != FILE_TYPE_DISK) {
    CloseHandle(file);
    return tl::unexpected(not_regular_error(utf8(path),
                                            type == FILE_TYPE_PIPE   ? FileKind::fifo
                                            : type == FILE_TYPE_CHAR ? FileKind::character_device
                                                                     : FileKind::other));
  }
  return file;
}

} // namespace doctor::platform::windows
