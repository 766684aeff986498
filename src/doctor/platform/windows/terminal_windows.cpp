// SPDX-License-Identifier: MIT
#include <doctor/platform/terminal.hpp>

#include <windows.h>

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

} // namespace doctor::platform
