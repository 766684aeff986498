// SPDX-License-Identifier: MIT
#include <doctor/platform/terminal.hpp>

#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cstdio>

namespace doctor::platform {

bool stdout_is_terminal() {
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  return out != INVALID_HANDLE_VALUE && GetConsoleMode(out, &mode) != 0;
}

void prepare_console() {
  SetConsoleOutputCP(CP_UTF8);
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (out != INVALID_HANDLE_VALUE && GetConsoleMode(out, &mode) != 0) {
    SetConsoleMode(out, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
  }
}

void set_stdin_binary() {
  _setmode(_fileno(stdin), _O_BINARY);
}

} // namespace doctor::platform
