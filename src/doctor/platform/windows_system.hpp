// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <cstdint>
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

} // namespace doctor::platform
