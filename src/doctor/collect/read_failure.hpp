// SPDX-License-Identifier: MIT
// Private to collect/: the reason a collector gives when a file it wanted is there but could not
// be read, so that "unknown, because …" says what it found ("/etc/os-release: is a FIFO, not a
// regular file") instead of calling the file absent.
#pragma once

#include <doctor/util/error.hpp>

#include <string>

namespace doctor::collect {

// Keeps the first error other than "not found" among the files a collector tried.
class ReadFailure {
public:
  // Notes `error` if it is the first that is not ErrorCode::not_found.
  void note(const Error& error) {
    if (m_message.empty() && error.code != ErrorCode::not_found) {
      m_message = error.message;
    }
  }

  // " (<message>)", or "" when every file tried was absent.
  std::string suffix() const { return m_message.empty() ? std::string() : " (" + m_message + ")"; }

private:
  std::string m_message;
};

} // namespace doctor::collect
