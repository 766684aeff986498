// SPDX-License-Identifier: MIT
// Kernel messages of earlier boots from the systemd journal, read through libsystemd's own C API
// (sd-journal). libsystemd is opened at run time, never linked: the doctor must start where it is
// absent (Windows, minimal containers), and then says why the journal could not be read.
#pragma once

#include <doctor/crash/observation.hpp>
#include <doctor/formats/kernel_log.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/error.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace doctor::collect {

// A journal entry of the kernel transport, as a kernel-log line: when.boot = _BOOT_ID, utc_usec =
// realtime, uptime_usec = monotonic, label empty; origin.source "journal" or the paths read,
// locator "cursor <journal cursor>"; level = PRIORITY 0..7 (-1 when absent or malformed); text =
// MESSAGE without a trailing newline, at most k_max_journal_text bytes.
using JournalLine = formats::KernelLine;

struct JournalRead {
  std::vector<JournalLine> lines; // kernel transport only, oldest first
  std::vector<std::string> boots; // boot ids of `lines`, in order of appearance, oldest first
  std::string library;            // path of the libsystemd used
};

// A longer MESSAGE is cut to this many bytes.
inline constexpr std::size_t k_max_journal_text = std::size_t{16} * 1024;

// Journal files taken from the directories given to read_journal (the rest are ignored).
inline constexpr std::size_t k_max_journal_files = 4096;

// Reads the kernel messages (_TRANSPORT=kernel) of the journal files or directories in `paths`
// (a directory is searched for *.journal and *.journal~ files, and one level of subdirectories
// such as /var/log/journal/<machine-id>/; empty `paths`: the local system journal), keeping the
// newest `max_lines`. Returns ErrorCode::unsupported when libsystemd.so.0 cannot be loaded or
// lacks the sd-journal functions (the message includes the loader's error), not_found when a path
// does not exist or a directory holds no journal file, permission_denied or io with the journal's
// own error text when it cannot be opened or read.
Expected<JournalRead> read_journal(const std::vector<std::string>& paths, std::size_t max_lines);

// The same for the journal files or directories `inner_paths` of the examined system `root`
// (/var/log/journal of an image): each path, and each journal file found in a directory, is
// resolved inside the root before its host path is formed, so an absolute link among them names
// a file of the image, never one of the host. The lines' origin.source is the inner paths.
// Returns the errors above, with inner paths in the messages.
Expected<JournalRead> read_journal(const platform::SysRoot& root,
                                   const std::vector<std::string>& inner_paths,
                                   std::size_t max_lines);

} // namespace doctor::collect
