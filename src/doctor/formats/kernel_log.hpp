// SPDX-License-Identifier: MIT
// Linux kernel logs in the text forms people and tools hand us: rsyslog/syslog files
// (kern.log, messages), `dmesg` with its time formats, raw /dev/kmsg records, pstore records and
// `journalctl -k` output. Each line is recognised by its own prefix, so a file that mixes forms
// (a pasted dmesg inside a syslog excerpt) still reads; the prefixes come off, the time is kept.
#pragma once

#include <doctor/formats/provenance.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::formats {

// One kernel message, without the prefixes its log form put in front of it.
struct KernelLine {
  // uptime_usec from "[sec.usec]" or the kmsg usec field; utc_usec from ISO timestamps (with
  // their offset; none means UTC) and from `dmesg -T` (local time, taken as UTC: dmesg does not
  // say the zone); a syslog "Feb 15 17:37:45" has no year and gives only the label. `boot` is set
  // from a journalctl "-- Boot <id> --" marker, else "" (the caller knows it for /dev/kmsg).
  When when;
  Origin origin;    // locator "line N": the first physical line of the message
  int level = -1;   // syslog level 0..7 when the source says (kmsg prio, <N>, dmesg --decode)
  std::string text; // the message; a joined multi-line message has its lines joined with "\n"
};

// Messages longer than this are cut (a hostile or binary file must not make huge lines).
inline constexpr std::size_t k_max_kernel_text = 16384;

// Reads a kernel log in any of its text forms, detected per line: rsyslog/syslog
// ("Feb 15 17:37:45 host kernel: [82659.755933] …", also RFC 5424/ISO timestamps
// "2025-01-21T04:41:44.283575+00:00 host kernel: …"; lines of other programs are skipped),
// `dmesg` ("[ sec.usec]", also with a "[ T123]" caller id), `dmesg -T` ("[Fri Aug 30 11:43:09
// 2024]"), `dmesg --decode --time-format=iso` ("kern  :warn  : 2025-…"), raw /dev/kmsg records
// ("prio,seq,usec,flags;text"; " KEY=VALUE" continuation lines are skipped, "\x0a" escapes split),
// pstore records ("Panic#1 Part1" header, "<N>[ts]" prefixes) and `journalctl -k` short output
// (short, short-precise, short-iso, short-monotonic). Unescapes rsyslog "#012" (and "#011", a
// tab) into separate lines, and joins the NVIDIA driver's multi-line messages (fallen off the bus,
// API mismatch, probe routine not called) into one KernelLine. Never fails: unknown lines are
// kept as plain text without a time. Input must be UTF-8 text (callers decode).
std::vector<KernelLine> read_kernel_log(std::string_view text, const std::string& source);

// The same, handing each KernelLine to `sink` as soon as it is complete, so a log of hundreds of
// megabytes need not be held as lines.
void read_kernel_log(std::string_view text,
                     const std::string& source,
                     const std::function<void(KernelLine&&)>& sink);

// True if `head` (the first KiB or so of a file) looks like a kernel log, a kmsg dump, a pstore
// record or journalctl output: one of its first lines has a kernel-log prefix, or it holds an
// "NVRM: " message.
bool looks_like_kernel_log(std::string_view head);

} // namespace doctor::formats
