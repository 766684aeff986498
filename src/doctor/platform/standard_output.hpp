// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <string_view>

// Standard output as the commands write it: every write and the final flush checked, so that a
// full disk (`> /dev/full`), a closed descriptor or a broken pipe whose SIGPIPE is ignored is an
// error the command reports, never an exit status 0 with nothing written.
namespace doctor::platform {

// Writes `text` to standard output and flushes it. Returns an error ("standard output: No space
// left on device") if any of it could not be written.
Expected<void> write_stdout(std::string_view text);

// Flushes standard output (whatever CLI11's help or another writer left in its buffer). Returns an
// error if that flush or any earlier write to standard output failed.
Expected<void> flush_stdout();

} // namespace doctor::platform
