// SPDX-License-Identifier: MIT
// Decompression of gzip files (rotated logs: kern.log.2.gz, messages-20250101.gz).
#pragma once

#include <doctor/util/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace doctor::formats {

// True if `bytes` starts with the gzip magic (1f 8b).
bool looks_like_gzip(std::string_view bytes);

// Decompresses a whole gzip file, every member of a multi-member file in turn (what `cat a.gz
// b.gz` and some rotators make); zero bytes after the last member (padding) are ignored.
// Errors: ErrorCode::too_large when the output would pass `max_output` bytes, ErrorCode::parse
// for data that is not gzip, is corrupt or ends early, ErrorCode::unsupported in a build
// without zlib (the Windows cross build).
Expected<std::string> gunzip(std::string_view bytes, std::size_t max_output);

// What gunzip_prefix kept.
struct Gunzipped {
  std::string data;       // at most max_output bytes
  bool truncated = false; // the data went on past max_output: only its start is here
};

// Like gunzip, but data past `max_output` bytes is no error: its first `max_output` bytes are
// kept and `truncated` is set. Inflating stops there, so memory and work are bounded by
// `max_output` whatever the file expands to (a gzip bomb). The errors are gunzip's, for damage
// before that point.
Expected<Gunzipped> gunzip_prefix(std::string_view bytes, std::size_t max_output);

} // namespace doctor::formats
