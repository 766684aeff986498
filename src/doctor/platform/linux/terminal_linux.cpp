// SPDX-License-Identifier: MIT
#include <doctor/platform/terminal.hpp>

#include <unistd.h>

namespace doctor::platform {

bool stdout_is_terminal() {
  return ::isatty(STDOUT_FILENO) == 1;
}

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

void prepare_console() {}

void set_stdin_binary() {}

} // namespace doctor::platform
