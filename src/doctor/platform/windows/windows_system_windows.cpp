// SPDX-License-Identifier: MIT
#include <doctor/platform/windows/wide.hpp>
#include <doctor/platform/windows_system.hpp>

#include <fmt/format.h>

#include <windows.h>

namespace doctor::platform {

namespace {

Error win_error(std::string_view what, DWORD code) {
  ErrorCode kind = ErrorCode::io;
  if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND || code == ERROR_INVALID_DRIVE) {
    kind = ErrorCode::not_found;
  } else if (code == ERROR_ACCESS_DENIED) {
    kind = ErrorCode::permission_denied;
  }
  return Error{kind, fmt::format("{}: {}", what, windows::last_error_message(code))};
}

// RTL_OSVERSIONINFOW, as winternl.h/wdm.h declare it.
struct OsVersionInfo {
  ULONG size;
  ULONG major;
  ULONG minor;
  ULONG build;
  ULONG platform;
  WCHAR csd[128];
};

using RtlGetVersionFn = LONG(WINAPI*)(OsVersionInfo*);

} // namespace

Expected<WindowsVersionNumbers> windows_version() {
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  if (ntdll == nullptr) {
    return tl::unexpected(win_error("ntdll.dll", GetLastError()));
  }
  // GetProcAddress returns FARPROC; the cast through void* names the real signature.
  auto* fn = reinterpret_cast<RtlGetVersionFn>(
      reinterpret_cast<void*>(GetProcAddress(ntdll, "RtlGetVersion")));
  if (fn == nullptr) {
    return make_error(ErrorCode::unsupported, "ntdll.dll has no RtlGetVersion");
  }
  OsVersionInfo info{};
  info.size = sizeof info;
  if (const LONG status = fn(&info); status != 0) {
    return make_error(
        ErrorCode::io,
        fmt::format("RtlGetVersion failed (NTSTATUS {:#x})", static_cast<unsigned long>(status)));
  }
  return WindowsVersionNumbers{info.major, info.minor, info.build};
}

Expected<MemoryStatus> memory_status() {
  MEMORYSTATUSEX status{};
  status.dwLength = sizeof status;
  if (GlobalMemoryStatusEx(&status) == 0) {
    return tl::unexpected(win_error("GlobalMemoryStatusEx", GetLastError()));
  }
  return MemoryStatus{
      status.ullTotalPhys, status.ullAvailPhys, status.ullTotalPageFile, status.ullAvailPageFile};
}

Expected<std::uint64_t> free_disk_bytes(std::string_view dir) {
  const std::wstring wdir = windows::widen(dir);
  ULARGE_INTEGER free_to_caller{};
  if (GetDiskFreeSpaceExW(wdir.c_str(), &free_to_caller, nullptr, nullptr) == 0) {
    return tl::unexpected(win_error(fmt::format("free space of {}", dir), GetLastError()));
  }
  return static_cast<std::uint64_t>(free_to_caller.QuadPart);
}

Expected<bool> process_elevated() {
  HANDLE token = nullptr;
  if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token) == 0) {
    return tl::unexpected(win_error("OpenProcessToken", GetLastError()));
  }
  TOKEN_ELEVATION elevation{};
  DWORD size = 0;
  const BOOL ok = GetTokenInformation(token, TokenElevation, &elevation, sizeof elevation, &size);
  const DWORD err = GetLastError();
  CloseHandle(token);
  if (ok == 0) {
    return tl::unexpected(win_error("GetTokenInformation(TokenElevation)", err));
  }
  return elevation.TokenIsElevated != 0;
}

} // namespace doctor::platform
