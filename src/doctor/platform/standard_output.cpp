// SPDX-License-Identifier: MIT
#include <doctor/platform/file.hpp>
#include <doctor/platform/standard_output.hpp>

#include <cerrno>
#include <cstdio>
#include <system_error>

namespace doctor::platform {

namespace {

constexpr std::string_view k_what = "standard output";

// The error of the last failed stdio call on stdout: errno where the C library set it (glibc
// does for every write), else a generic I/O error.
Error stdout_error(int err) {
  if (err == 0) {
    return Error{ErrorCode::io, "standard output: write error"};
  }
  return error_from(std::error_code(err, std::generic_category()), k_what);
}

} // namespace

Expected<void> write_stdout(std::string_view text) {
  errno = 0;
  const std::size_t written = std::fwrite(text.data(), 1, text.size(), stdout);
  if (written != text.size()) {
    return tl::unexpected(stdout_error(errno));
  }
  return flush_stdout();
}

Expected<void> flush_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    return tl::unexpected(stdout_error(errno));
  }
  return {};
}

} // namespace doctor::platform
