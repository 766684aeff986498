// SPDX-License-Identifier: MIT
// Private to formats/minidump.cpp and formats/kernel_dump.cpp: the strings of Windows crash dumps.
#pragma once

#include <doctor/util/strings.hpp>

#include <string>
#include <string_view>

namespace doctor::formats::detail {

// UTF-16LE to printable UTF-8, cut at 600 bytes; lone surrogates become U+FFFD, control
// characters "?".
inline std::string printable_utf16(std::string_view bytes) {
  return util::sanitize(util::utf16le_to_utf8(bytes), 600);
}

// The last component of a Windows or POSIX path ("\SystemRoot\System32\ntoskrnl.exe" ->
// "ntoskrnl.exe").
inline std::string dump_file_name(std::string_view path) {
  const auto slash = path.find_last_of("\\/");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

} // namespace doctor::formats::detail
