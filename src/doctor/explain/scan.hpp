// SPDX-License-Identifier: MIT
// Reads one input to its end and feeds its lines to an Analysis, as a stream with bounded memory.
//
// Text in UTF-8 (most logs) takes a fast path: the literal prefilter runs over the raw bytes of
// many lines at once, line numbers come from counting LFs, and only lines holding a candidate
// literal are decoded (ANSI, CRLF, #012) and matched. A block of lines that contains an ESC byte
// (colour codes could split a literal) and a line longer than the buffer go through the decoder
// instead. Other encodings are decoded line by line. Both paths give the same matches.
#pragma once

#include <doctor/explain/analysis.hpp>
#include <doctor/util/error.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace doctor::explain {

// std::thread::hardware_concurrency(), at least 1 and at most 4.
std::size_t default_scan_threads();

struct ScanOptions {
  bool fast_path = true;                          // false: decode every line (tests compare both)
  std::size_t chunk_bytes = std::size_t{4} << 20; // read size
  // Threads for the prefilter over large blocks (1..8); the cores there are, by default.
  std::size_t threads = default_scan_threads();
};

// Fills the buffer with up to `size` bytes; returns 0 at the end of the input.
using ReadFn = std::function<Expected<std::size_t>(char* buffer, std::size_t size)>;

// Reads `read` to its end as input `name` of `analysis`. Returns the read error, if any (what
// was read before it is kept in the analysis).
Expected<void> scan_input(const std::string& name,
                          const ReadFn& read,
                          Analysis& analysis,
                          const ScanOptions& options = {});

// The same for text already in memory.
void scan_text(const std::string& name,
               std::string_view bytes,
               Analysis& analysis,
               const ScanOptions& options = {});

} // namespace doctor::explain
