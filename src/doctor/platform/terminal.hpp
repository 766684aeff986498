// SPDX-License-Identifier: MIT
#pragma once

namespace doctor::platform {

// True if standard output is a terminal (colour is then used unless NO_COLOR is set).
bool stdout_is_terminal();

// Makes standard output able to show UTF-8 and ANSI colours where the platform needs it to be
// asked (a Windows console); does nothing elsewhere.
void prepare_console();

// Makes standard input deliver bytes unchanged (no CRLF or Ctrl-Z translation on Windows), for
// reading logs piped in; does nothing elsewhere.
void set_stdin_binary();

} // namespace doctor::platform
