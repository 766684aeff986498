// SPDX-License-Identifier: MIT
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/windows/wide.hpp>

namespace doctor::platform {

// Through windows::widen/narrow (MultiByteToWideChar and WideCharToMultiByte with CP_UTF8), never
// through path's own narrow conversions: its constructor from std::string uses the C library's
// multibyte conversion (the ANSI code page), and string() throws on an unpaired surrogate, which
// an NTFS name may hold.

std::filesystem::path u8path(std::string_view utf8) {
  return std::filesystem::path(windows::widen(utf8));
}

std::string utf8(const std::filesystem::path& path) {
  return windows::narrow(path.native());
}

std::string generic_utf8(const std::filesystem::path& path) {
  return windows::narrow(path.generic_wstring());
}

} // namespace doctor::platform
