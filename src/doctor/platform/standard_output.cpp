// SPDX-License-Identifier: MIT
#include <doctor/platform/console.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/standard_output.hpp>

#include <cerrno>
#include <cstdio>
#include <system_error>

namespace doctor::platform {

namespace {

// The error of the last failed stdio call on `stream`: errno where the C library set it (glibc
// does for every write), else a generic I/O error.
Error stream_error(int err, std::string_view what) {
  if (err == 0) {
    return Error{ErrorCode::io, std::string(what) + ": write error"};
  }
  return error_from(std::error_code(err, std::generic_category()), what);
}

Expected<void> flush_stream(std::FILE* stream, std::string_view what) {
  errno = 0;
  if (std::fflush(stream) != 0 || std::ferror(stream) != 0) {
    return tl::unexpected(stream_error(errno, what));
  }
  return {};
}

Expected<void> write_stream(StandardStream which,
                            std::FILE* stream,
                            std::string_view what,
                            std::string_view text) {
  auto console = write_console(which, text);
  if (!console) {
    return tl::unexpected(console.error());
  }
  if (!*console) {
    errno = 0;
    const std::size_t written = std::fwrite(text.data(), 1, text.size(), stream);
    if (written != text.size()) {
      return tl::unexpected(stream_error(errno, what));
    }
  }
  return flush_stream(stream, what);
}

} // namespace

Expected<void> write_stdout(std::string_view text) {
  return write_stream(StandardStream::out, stdout, "standard output", text);
}

Expected<void> flush_stdout() {
  if (auto ok = flush_console(StandardStream::out); !ok) {
    return ok;
  }
  return flush_stream(stdout, "standard output");
}

Expected<void> write_stderr(std::string_view text) {
  if (auto ok = write_stream(StandardStream::err, stderr, "standard error", text); !ok) {
    return ok;
  }
  return flush_console(StandardStream::err);
}

} // namespace doctor::platform
