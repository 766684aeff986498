// SPDX-License-Identifier: MIT
#pragma once

namespace doctor::platform {

// True if standard output is a terminal (colour is then used unless NO_COLOR is set).
bool stdout_is_terminal();

// Makes standard output able to show UTF-8 and ANSI colours where the platform needs it to be
// asked (a Windows console); does nothing elsewhere.
void prepare_console();

// Where descriptor 0, 1 or 2 is closed (`cudnn-doctor >&-`), opens the null device in its place,
// read-only for 1 and 2 and write-only for 0, so that no file the doctor opens later takes that
// number (the hash cache's temporary file would otherwise receive the report) and every use of
// the closed stream still fails as on a closed descriptor (EBADF). Does nothing on Windows.
void reserve_standard_streams();

// Makes standard input deliver bytes unchanged (no CRLF or Ctrl-Z translation on Windows), for
// reading logs piped in; does nothing elsewhere.
void set_stdin_binary();

} // namespace doctor::platform
