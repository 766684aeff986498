// SPDX-License-Identifier: MIT
// Private to crash evidence collection: the places each examined OS keeps crash evidence. Both
// files build on every host: a Windows system disk is examined from Linux, and a Linux image
// from anywhere. crash_evidence.cpp chooses by the root.
#pragma once

#include <doctor/crash/incident.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/platform/sysroot.hpp>

#include <optional>
#include <string>

namespace doctor::collect {

// Linux (linux/crash_sources.cpp): the systemd journal (every boot), /dev/kmsg (live, when the
// journal lacks the current boot), /var/log/kern.log*, messages*, syslog* (also rotated and
// gzipped; when no persistent journal holds the same), pstore (/sys/fs/pstore,
// /var/lib/systemd/pstore) and kdump (/var/crash). Every file is read inside `root`.
void collect_linux_crash_sources(const platform::SysRoot& root,
                                 const kb::KnowledgeBase& kb,
                                 crash::Collected& out);

// Windows (windows/crash_sources.cpp).

// Returns the inner path of the Windows directory of a Windows system disk ("/Windows", with
// System32 in it), or nullopt when `root` holds none.
std::optional<std::string> windows_directory(const platform::SysRoot& root);

// A Windows disk tree: <windows>/Minidump/*.dmp, MEMORY.DMP, LiveKernelReports and the System
// and Application .evtx files, read inside `root`.
void collect_windows_disk_crash_sources(const platform::SysRoot& root,
                                        const std::string& windows,
                                        const kb::KnowledgeBase& kb,
                                        crash::Collected& out);

// The live Windows machine `root`: its dumps (under %SystemRoot%), the System and Application
// event logs through the event log API, and the TDR settings from the registry.
void collect_live_windows_crash_sources(const platform::SysRoot& root,
                                        const kb::KnowledgeBase& kb,
                                        crash::Collected& out);

} // namespace doctor::collect
