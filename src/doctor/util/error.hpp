// SPDX-License-Identifier: MIT
#pragma once

#include <tl/expected.hpp>

#include <string>
#include <string_view>

namespace doctor {

// Why an operation failed, coarse enough for callers to branch on.
enum class ErrorCode {
  not_found,
  permission_denied,
  io,
  parse,
  invalid_argument,
  unsupported,
  timeout,
  crashed,
  too_large,
  symlink_loop,
  not_regular, // a FIFO, socket, device or directory where a regular file was to be read
  resource,    // out of memory, address space or file descriptors: says nothing of the file
  internal,
};

// Returns the lower-case name of `code` ("not_found").
std::string_view to_string(ErrorCode code);

// A failure: a code and a lower-case message fragment that composes with prefixes
// ("cannot read /etc/os-release: permission denied").
struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
};

template<typename T>
using Expected = tl::expected<T, Error>;

// Builds the error side of an Expected.
inline tl::unexpected<Error> make_error(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(message)});
}

} // namespace doctor
