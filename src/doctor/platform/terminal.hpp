// SPDX-License-Identifier: MIT
#pragma once

namespace doctor::platform {

// True if standard output is a terminal that shows colours (colour is then used unless NO_COLOR
// is set); on Windows, a console in virtual-terminal mode.
bool stdout_is_terminal();

// True if standard error is a terminal (a console on Windows): progress lines go there only then.
bool stderr_is_terminal();

// Asks a Windows console for virtual-terminal mode (ANSI colours), where it must be asked; does
// nothing elsewhere. (Text reaches a console as characters either way: platform/console.hpp.)
void prepare_console();

// Makes standard input deliver bytes unchanged (no CRLF or Ctrl-Z translation on Windows), for
// reading logs piped in; does nothing elsewhere.
void set_stdin_binary();

} // namespace doctor::platform
