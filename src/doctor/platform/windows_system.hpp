// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

// What only the Win32 API tells about the Windows machine the doctor runs on (the live Windows
// collectors; an examined disk has none of it). Every function returns ErrorCode::unsupported on
// a host that is not Windows.
namespace doctor::platform {

struct WindowsVersionNumbers {
  std::uint32_t major = 0; // 10
  std::uint32_t minor = 0; // 0
  std::uint32_t build = 0; // 22631
};

// The version ntdll's RtlGetVersion reports, which no application manifest changes (unlike
// GetVersionEx). Returns an error if ntdll.dll has no RtlGetVersion or the call fails.
Expected<WindowsVersionNumbers> windows_version();

struct MemoryStatus {
  std::uint64_t total_physical = 0;     // bytes of RAM (GlobalMemoryStatusEx ullTotalPhys)
  std::uint64_t available_physical = 0; // ullAvailPhys
  std::uint64_t commit_limit = 0;       // RAM plus page files (ullTotalPageFile)
  std::uint64_t commit_available = 0;   // ullAvailPageFile
};

// GlobalMemoryStatusEx. Returns an error if the call fails.
Expected<MemoryStatus> memory_status();

// The bytes free to the caller on the volume holding `dir` (UTF-8, "C:\\"), GetDiskFreeSpaceExW.
// Returns an error (not_found, permission_denied, io) if the volume cannot be asked.
Expected<std::uint64_t> free_disk_bytes(std::string_view dir);

// Whether this process's token is elevated (TokenElevation). Returns an error if the token
// cannot be read.
Expected<bool> process_elevated();

// What the current user may do with a file, as LoadLibrary needs it: read it (FILE_GENERIC_READ),
// and execute it (FILE_EXECUTE: the loader opens a DLL for read data and execute and maps it as an
// image).
struct FileRights {
  bool readable = false;
  bool executable = false;
  // How it was learned: "AccessCheck" (the file's owner, group and DACL against this process's
  // token), or "CreateFileW" (the descriptor could not be read: the two opens were tried).
  std::string method;
  std::string detail; // with "CreateFileW": why the descriptor was not read, and each open's error
};

// The current user's effective rights on `path` (UTF-8): GetFileSecurityW and AccessCheck with an
// impersonation copy of the process token and the file generic mapping; where the descriptor
// cannot be read, CreateFileW with each right. Returns an error (not_found, io) if the file does
// not exist or neither way answers.
Expected<FileRights> file_rights(std::string_view path);

// Reads at most `max_bytes` of the alternate data stream `stream` of `path`
// ("C:\x\cudnn64_9.dll" and "Zone.Identifier": "<path>:Zone.Identifier"). Returns not_found
// when the file has no such stream, or another error (permission_denied, io).
Expected<std::string>
read_alternate_stream(std::string_view path, std::string_view stream, std::size_t max_bytes);

// WinVerifyTrust(WINTRUST_ACTION_GENERIC_VERIFY_V2) of the file `path`: no UI, no revocation
// check, URLs only from the cache (never the network); the whole file is hashed. wintrust.dll is
// loaded at run time from System32 only. Returns WinVerifyTrust's result (0: a valid signature;
// collect::authenticode_verdict names the others), or an error if wintrust.dll or its function
// cannot be loaded.
Expected<std::uint32_t> authenticode_result(std::string_view path);

} // namespace doctor::platform
