// SPDX-License-Identifier: MIT
// Turns the Windows events that matter for GPU crashes into Observations; every other event is
// skipped. The mapping reads <Data> (named on new manifests, positional on older Windows), never
// the localised message.
#pragma once

#include <doctor/crash/observation.hpp>
#include <doctor/formats/event_record.hpp>

#include <vector>

namespace doctor::crash {

// Maps, in input order (one Observation per mapped event):
// System:
// - Kernel-Power 41: BugcheckCode (DECIMAL, 278) non-zero -> bugcheck, code "0x116", fields
//   param1..param4 (and raw_code when the 0x10000000 flag was masked); zero or absent ->
//   power_loss, code "41", fields power_button_timestamp, long_power_button_press,
//   sleep_in_progress.
// - EventLog 6008 -> unexpected_shutdown, code "6008", field previous_shutdown ("date time").
// - WER-SystemErrorReporting / BugCheck 1001 -> bugcheck from param1 "0x00000116 (0x…, …)",
//   fields param1..param4, dump (param2), report_id (param3).
// - Display 4101 -> tdr, code "4101", field driver.
// - nvlddmkm 13/14 -> nvidia_event, code "13"/"14", fields device, message.
// - nvlddmkm 153 and 0 -> tdr, code "153"/"0", fields device, message.
// - WHEA-Logger (any id) -> whea, code = event id, the named Data except Length/RawData, and
//   cper_severity / cper_section (section type name) when RawData is a CPER record.
// - volmgr 46 ("crash dump initialization failed") is skipped: no kind fits it.
// Application:
// - Application Error 1000 -> app_crash, code = exception code ("0xc0000005"), fields process,
//   process_version, module, module_version, module_path, offset, pid (decimal), app_path.
// - Application Hang 1002 -> app_hang, code "1002", fields process, process_version, pid,
//   app_path, hang_type.
// - Windows Error Reporting 1001: EventName APPCRASH / BEX / BEX64 -> app_crash from P1..P8
//   (same fields as 1000); LiveKernelEvent with P1 117/141/1b8/193/1a8 -> tdr, code "0x117";
//   fields event_name, report_id.
// - NVIDIA OpenGL Driver 1 with "TDR" in its text -> tdr, code "1", fields side ("app"),
//   message, and pid / process when the text has "(pid=N … name.exe".
// Every Observation has fields "provider" and "event_id" first, `when` from TimeCreated, the
// record's origin, and one line: the Data values joined compactly ("Name=value, …").
std::vector<Observation> observe_events(const std::vector<formats::EventRecord>& records);

} // namespace doctor::crash
