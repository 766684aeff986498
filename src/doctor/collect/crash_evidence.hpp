// SPDX-License-Identifier: MIT
// Gathering crash evidence: files the user names, or the places a machine keeps it. Every file
// is typed by its content, never by its name; each source says what it gave or why it gave
// nothing.
#pragma once

#include <doctor/crash/incident.hpp>
#include <doctor/crash/observation.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/platform/sysroot.hpp>

#include <string>
#include <vector>

namespace doctor::collect {

// Reads `paths` (--from): kernel dumps (PAGEDU64/PAGEDUMP), user-mode minidumps (MDMP), .evtx
// files, event XML exports (wevtutil /f:xml, Get-WinEvent ToXml; UTF-8 or UTF-16), kernel logs
// (kern.log, messages, syslog, dmesg output, /dev/kmsg records, pstore records; plain or gzip),
// systemd journal files, and directories of those. A path that cannot be read or parsed is a
// source with status "unreadable" or "invalid" and a message; it never stops the others.
crash::Collected collect_files(const std::vector<std::string>& paths, const kb::KnowledgeBase& kb);

// Reads the evidence `root` keeps. Linux: the systemd journal (every boot), /dev/kmsg (live, when
// the journal lacks the current boot), /var/log/kern.log*, messages*, syslog* (also rotated and
// gzipped; when no persistent journal holds the same), pstore (/sys/fs/pstore,
// /var/lib/systemd/pstore) and kdump (/var/crash). A Windows tree (a mounted system disk, with
// Windows/System32): Minidump/*.dmp, MEMORY.DMP, LiveKernelReports, System.evtx and
// Application.evtx. Live Windows: the same dumps, the System and Application event logs through
// the event log API, and the TDR settings from the registry.
crash::Collected collect_machine(const platform::SysRoot& root, const kb::KnowledgeBase& kb);

} // namespace doctor::collect
