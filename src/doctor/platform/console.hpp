// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <string_view>

// A standard stream that shows on a console window. A Windows console takes characters, not
// bytes: UTF-8 written to it with WriteFile is read in the console's code page (mojibake for
// "张伟" under the usual 936 or 437), so text for it goes through WriteConsoleW. A file or pipe
// gets the UTF-8 bytes unchanged, as every stream on Linux does (its terminals take UTF-8).
// platform::write_stdout and write_stderr are built on this; nothing else should need it.
namespace doctor::platform {

enum class StandardStream { out, err };

// Writes `text` (UTF-8) to the console `stream` shows on, as characters. A UTF-8 sequence cut
// short at the end of `text` is held back and written in front of the next call's text, so a
// caller may cut text anywhere. Returns false, writing nothing, if `stream` is no console (then
// the caller writes the bytes); returns an error if the console refused the text.
Expected<bool> write_console(StandardStream stream, std::string_view text);

// Writes what write_console held back for `stream` (an unfinished sequence shows as U+FFFD).
// Returns an error if the console refused it; does nothing for a stream that is no console.
Expected<void> flush_console(StandardStream stream);

} // namespace doctor::platform
