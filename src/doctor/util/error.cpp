// SPDX-License-Identifier: MIT
#include <doctor/util/error.hpp>

namespace doctor {

std::string_view to_string(ErrorCode code) {
  switch (code) {
  case ErrorCode::not_found:
    return "not_found";
  case ErrorCode::permission_denied:
    return "permission_denied";
  case ErrorCode::io:
    return "io";
  case ErrorCode::parse:
    return "parse";
  case ErrorCode::invalid_argument:
    return "invalid_argument";
  case ErrorCode::unsupported:
    return "unsupported";
  case ErrorCode::timeout:
    return "timeout";
  case ErrorCode::crashed:
    return "crashed";
  case ErrorCode::too_large:
    return "too_large";
  case ErrorCode::symlink_loop:
    return "symlink_loop";
  case ErrorCode::not_regular:
    return "not_regular";
  case ErrorCode::resource:
    return "resource";
  case ErrorCode::internal:
    return "internal";
  }
  return "internal";
}

} // namespace doctor
