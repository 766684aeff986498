// SPDX-License-Identifier: MIT
// Private to platform/linux: the owner of one POSIX file descriptor.
#pragma once

#include <unistd.h>

#include <utility>

namespace doctor::platform {

// Closes its descriptor when it goes out of scope, unless release() handed it on. Holds -1 when
// it owns none (a failed open() gives -1, so `Fd fd(::open(...))` is safe either way).
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd)
      : m_fd(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept
      : m_fd(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      m_fd = other.release();
    }
    return *this;
  }
  ~Fd() { reset(); }

  // The descriptor, or -1.
  int get() const { return m_fd; }

  // True if it owns a descriptor.
  explicit operator bool() const { return m_fd >= 0; }

  // Closes the descriptor now, if there is one.
  void reset() {
    if (m_fd >= 0) {
      ::close(m_fd);
      m_fd = -1;
    }
  }

  // Gives up ownership: returns the descriptor, which the caller must close.
  int release() { return std::exchange(m_fd, -1); }

private:
  int m_fd = -1;
};

} // namespace doctor::platform
