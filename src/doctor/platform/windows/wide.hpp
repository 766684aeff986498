// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace doctor::platform::windows {

// Converts UTF-8 to UTF-16 and back (invalid input becomes U+FFFD).
std::wstring widen(std::string_view s);
std::string narrow(std::wstring_view s);

// Returns the system's message for the Win32 error `code`, trimmed ("The specified module could
// not be found.").
std::string last_error_message(unsigned long code);

} // namespace doctor::platform::windows
