// SPDX-License-Identifier: MIT
#include <doctor/platform/terminal.hpp>

#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cstdio>

namespace doctor::platform {

// Colour is escape sequences, which a console shows as such only in virtual-terminal mode
// (Windows 10 1511 and later, asked for by prepare_console); an older console, or one that
// refuses the mode, would print "←[1;31m", so there standard output counts as no terminal.
bool stdout_is_terminal() {
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  return out != nullptr && out != INVALID_HANDLE_VALUE && GetConsoleMode(out, &mode) != 0
         && (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0;
}

bool stderr_is_terminal() {
  HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
  DWORD mode = 0;
  return err != nullptr && err != INVALID_HANDLE_VALUE && GetConsoleMode(err, &mode) != 0;
}

// The console's code page is left alone: text reaches a console through WriteConsoleW
// (platform/console.hpp), and SetConsoleOutputCP would outlast the doctor in the user's window.
void prepare_console() {
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (out != nullptr && out != INVALID_HANDLE_VALUE && GetConsoleMode(out, &mode) != 0
      && (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) == 0) {
    SetConsoleMode(out, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
  }
}

void set_stdin_binary() {
  _setmode(_fileno(stdin), _O_BINARY);
}

} // namespace doctor::platform
