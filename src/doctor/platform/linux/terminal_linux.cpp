// SPDX-License-Identifier: MIT
#include <doctor/platform/terminal.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <initializer_list>

namespace doctor::platform {

bool stdout_is_terminal() {
  return ::isatty(STDOUT_FILENO) == 1;
}

void prepare_console() {}

void reserve_standard_streams() {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1) {
      continue;
    }
    // open() returns the lowest free descriptor: `fd` itself, the lower ones being open.
    const int null = ::open("/dev/null", (fd == STDIN_FILENO ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    if (null >= 0 && null != fd) {
      ::close(null); // a lower one was free too: the loop reaches it first, so this is not ours
    }
  }
}

void set_stdin_binary() {}

} // namespace doctor::platform
