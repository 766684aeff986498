// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

// The one place where text and host paths meet. The doctor keeps every path as UTF-8 text (what
// the command line, the reports and the snapshots hold); a std::filesystem::path is made from that
// text and turned back into it only here. On Windows std::filesystem::path(std::string) reads the
// bytes in the ANSI code page (libstdc++: as Latin-1), so "张伟" would name another folder; these
// functions convert UTF-8 to and from UTF-16 instead. On Linux a path is bytes, and they are the
// identity on them.
namespace doctor::platform {

// The host path named by the UTF-8 text `utf8` (on Windows, bytes that are not UTF-8 become
// U+FFFD and name no file).
std::filesystem::path u8path(std::string_view utf8);

// `path` as UTF-8 text in the platform's own form ("C:\\Users\\张伟" on Windows); on Windows an
// unpaired surrogate becomes U+FFFD, so this never throws.
std::string utf8(const std::filesystem::path& path);

// `path` as UTF-8 text with '/' as the separator ("C:/Users/张伟"), as the reports and the
// loader model write paths.
std::string generic_utf8(const std::filesystem::path& path);

} // namespace doctor::platform
