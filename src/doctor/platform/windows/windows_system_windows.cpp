// SPDX-License-Identifier: MIT
#include <doctor/platform/windows/wide.hpp>
#include <doctor/platform/windows_system.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <algorithm>
#include <vector>
// After windows.h: the WinVerifyTrust structures and action GUID (the function itself is taken
// from wintrust.dll at run time, so the executable does not import it).
#include <softpub.h>
#include <wintrust.h>

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

namespace {

// Closes a Win32 handle at the end of the scope.
class ScopedHandle {
public:
  explicit ScopedHandle(HANDLE h = nullptr)
      : m_handle(h) {}
  ScopedHandle(const ScopedHandle&) = delete;
  ScopedHandle& operator=(const ScopedHandle&) = delete;
  ~ScopedHandle() {
    if (m_handle != nullptr && m_handle != INVALID_HANDLE_VALUE) {
      CloseHandle(m_handle);
    }
  }
  HANDLE get() const { return m_handle; }
  HANDLE* out() { return &m_handle; }

private:
  HANDLE m_handle;
};

// The file's owner, group and DACL (what AccessCheck needs), or the Win32 error.
Expected<std::vector<BYTE>> file_security(const std::wstring& path, DWORD& code) {
  const SECURITY_INFORMATION what =
      OWNER_SECURITY_INFORMATION | GROUP_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION;
  DWORD needed = 0;
  std::vector<BYTE> sd(512);
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (GetFileSecurityW(path.c_str(), what, sd.data(), static_cast<DWORD>(sd.size()), &needed)
        != 0) {
      return sd;
    }
    code = GetLastError();
    if (code != ERROR_INSUFFICIENT_BUFFER || needed <= sd.size() || needed > 1U << 20) {
      return tl::unexpected(win_error("GetFileSecurityW", code));
    }
    sd.resize(needed);
  }
  return tl::unexpected(win_error("GetFileSecurityW", code));
}

// AccessCheck of `desired` (generic rights mapped for files) against `sd` for `token`.
Expected<bool> access_granted(std::vector<BYTE>& sd, HANDLE token, DWORD desired) {
  GENERIC_MAPPING mapping{
      FILE_GENERIC_READ, FILE_GENERIC_WRITE, FILE_GENERIC_EXECUTE, FILE_ALL_ACCESS};
  MapGenericMask(&desired, &mapping);
  // PRIVILEGE_SET has room for one privilege; AccessCheck asks for more when it needs it.
  std::vector<BYTE> privileges(sizeof(PRIVILEGE_SET) + 8 * sizeof(LUID_AND_ATTRIBUTES));
  auto size = static_cast<DWORD>(privileges.size());
  DWORD granted = 0;
  BOOL status = FALSE;
  if (AccessCheck(sd.data(),
                  token,
                  desired,
                  &mapping,
                  reinterpret_cast<PRIVILEGE_SET*>(privileges.data()),
                  &size,
                  &granted,
                  &status)
      == 0) {
    return tl::unexpected(win_error("AccessCheck", GetLastError()));
  }
  return status != 0 && (granted & desired) == desired;
}

// The fallback: whether an open with `desired` succeeds, and the error if not.
bool open_succeeds(const std::wstring& path, DWORD desired, std::string& why) {
  ScopedHandle h(CreateFileW(path.c_str(),
                             desired,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                             nullptr,
                             OPEN_EXISTING,
                             FILE_ATTRIBUTE_NORMAL,
                             nullptr));
  if (h.get() == INVALID_HANDLE_VALUE) {
    why = windows::last_error_message(GetLastError());
    return false;
  }
  return true;
}

} // namespace

// GetFileSecurityW needs READ_CONTROL, which a DACL can withhold even from a user who may read
// the data (the owner always has it); then only trying the opens tells. AccessCheck wants an
// impersonation token, hence the duplicate of the primary one.
Expected<FileRights> file_rights(std::string_view path) {
  const std::wstring wpath = windows::widen(path);
  DWORD code = 0;
  auto sd = file_security(wpath, code);
  if (!sd && (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND)) {
    return tl::unexpected(sd.error());
  }
  std::string why;
  if (sd) {
    ScopedHandle process_token;
    ScopedHandle token;
    if (OpenProcessToken(GetCurrentProcess(), TOKEN_DUPLICATE | TOKEN_QUERY, process_token.out())
            == 0
        || DuplicateToken(process_token.get(), SecurityImpersonation, token.out()) == 0) {
      why = win_error("the process token", GetLastError()).message;
    } else {
      auto read = access_granted(*sd, token.get(), FILE_GENERIC_READ);
      auto execute = access_granted(*sd, token.get(), FILE_EXECUTE);
      if (read && execute) {
        return FileRights{*read, *execute, "AccessCheck", ""};
      }
      why = (read ? execute : read).error().message;
    }
  } else {
    why = sd.error().message;
  }
  FileRights out;
  out.method = "CreateFileW";
  std::string read_error;
  std::string execute_error;
  out.readable = open_succeeds(wpath, FILE_GENERIC_READ, read_error);
  out.executable = open_succeeds(wpath, FILE_READ_DATA | FILE_EXECUTE, execute_error);
  out.detail = "the security descriptor was not read (" + why + ")";
  if (!out.readable) {
    out.detail += "; open for read: " + read_error;
  }
  if (!out.executable) {
    out.detail += "; open for execute: " + execute_error;
  }
  return out;
}

Expected<std::string>
read_alternate_stream(std::string_view path, std::string_view stream, std::size_t max_bytes) {
  const std::string name = fmt::format("{}:{}", path, stream);
  ScopedHandle h(CreateFileW(windows::widen(name).c_str(),
                             GENERIC_READ,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                             nullptr,
                             OPEN_EXISTING,
                             FILE_ATTRIBUTE_NORMAL,
                             nullptr));
  if (h.get() == INVALID_HANDLE_VALUE) {
    return tl::unexpected(win_error(name, GetLastError()));
  }
  std::string out(max_bytes, '\0');
  std::size_t have = 0;
  while (have < max_bytes) {
    DWORD got = 0;
    const auto want = static_cast<DWORD>(std::min<std::size_t>(max_bytes - have, 1U << 16));
    if (ReadFile(h.get(), out.data() + have, want, &got, nullptr) == 0) {
      return tl::unexpected(win_error(name, GetLastError()));
    }
    if (got == 0) {
      break;
    }
    have += got;
  }
  out.resize(have);
  return out;
}

// The flags keep the check on this machine: no revocation check (it would fetch CRLs) and
// URLs from the cache only; WTD_UI_NONE never shows a dialog.
Expected<std::uint32_t> authenticode_result(std::string_view path) {
  using WinVerifyTrustFn = LONG(WINAPI*)(HWND, GUID*, LPVOID);
  static const HMODULE wintrust =
      LoadLibraryExW(L"wintrust.dll", nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (wintrust == nullptr) {
    return tl::unexpected(win_error("wintrust.dll", GetLastError()));
  }
  auto* verify = reinterpret_cast<WinVerifyTrustFn>(
      reinterpret_cast<void*>(GetProcAddress(wintrust, "WinVerifyTrust")));
  if (verify == nullptr) {
    return make_error(ErrorCode::unsupported, "wintrust.dll has no WinVerifyTrust");
  }
  const std::wstring wpath = windows::widen(path);
  WINTRUST_FILE_INFO file{};
  file.cbStruct = sizeof file;
  file.pcwszFilePath = wpath.c_str();
  WINTRUST_DATA data{};
  data.cbStruct = sizeof data;
  data.dwUIChoice = WTD_UI_NONE;
  data.fdwRevocationChecks = WTD_REVOKE_NONE;
  data.dwUnionChoice = WTD_CHOICE_FILE;
  data.pFile = &file;
  data.dwStateAction = WTD_STATEACTION_VERIFY;
  data.dwProvFlags = WTD_CACHE_ONLY_URL_RETRIEVAL | WTD_REVOCATION_CHECK_NONE;
  GUID action = WINTRUST_ACTION_GENERIC_VERIFY_V2;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): INVALID_HANDLE_VALUE asks for no window at all.
  const LONG result = verify(static_cast<HWND>(INVALID_HANDLE_VALUE), &action, &data);
  data.dwStateAction = WTD_STATEACTION_CLOSE;
  verify(static_cast<HWND>(INVALID_HANDLE_VALUE), &action, &data);
  return static_cast<std::uint32_t>(result);
}

} // namespace doctor::platform
