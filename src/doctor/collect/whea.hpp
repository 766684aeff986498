// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/formats/event_record.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <span>

namespace doctor::collect {

// Counts the Microsoft-Windows-WHEA-Logger events among `records`: fatal (level critical or
// error) and corrected (level warning) ones, and each event id. `log` names where they came from.
facts::WheaErrors count_whea(std::span<const formats::EventRecord> records, const std::string& log);

// Reads the System event log of the Windows system under `root` (the live machine's
// %SystemRoot%, or Windows/System32/winevt/Logs/System.evtx of a Windows disk) and stores the
// WHEA counts in facts.host_hardware.whea; unknown with why where the log is missing or
// unreadable, and on Linux.
void collect_whea(const platform::SysRoot& root, facts::Facts& facts);

} // namespace doctor::collect
