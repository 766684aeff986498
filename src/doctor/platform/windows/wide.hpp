// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace doctor::platform::windows {

// Converts UTF-8 to UTF-16 and back (invalid input becomes U+FFFD).
std::wstring widen(std::string_view s);
std::string narrow(std::wstring_view s);

// Returns the system's message for the Win32 error `code`, trimmed ("The specified module could
// not be found.").
std::string last_error_message(unsigned long code);

// Opens `path` for reading, shared with writers and deleters, as a Win32 HANDLE (returned as
// void*, so that this header needs no windows.h); `sequential` hints a front-to-back read.
// Returns ErrorCode::not_regular for anything GetFileType() does not call FILE_TYPE_DISK (a pipe,
// the console, NUL or COM1), and otherwise not_found, permission_denied, resource or io naming the
// path and the Win32 error.
Expected<void*> open_for_reading(const std::filesystem::path& path, bool sequential = false);

} // namespace doctor::platform::windows
