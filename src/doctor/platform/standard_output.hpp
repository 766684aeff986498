// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <string_view>

// Standard output as the commands write it: every write and the final flush checked, so that a
// full disk (`> /dev/full`), a closed descriptor or a broken pipe whose SIGPIPE is ignored is an
// error the command reports, never an exit status 0 with nothing written. Text is UTF-8; a
// Windows console is given it as characters (platform/console.hpp), a file or pipe as the bytes.
namespace doctor::platform {

// Writes `text` to standard output and flushes it. Returns an error ("standard output: No space
// left on device") if any of it could not be written.
Expected<void> write_stdout(std::string_view text);

// Flushes standard output (whatever CLI11's help or another writer left in its buffer, and a
// UTF-8 sequence a console write held back). Returns an error if that flush or any earlier write
// to standard output failed.
Expected<void> flush_stdout();

// Writes `text` to standard error, unbuffered, as write_stdout does to standard output. Returns an
// error if it could not be written (a caller reporting an error has nowhere else to say so, and
// may ignore it).
Expected<void> write_stderr(std::string_view text);

} // namespace doctor::platform
