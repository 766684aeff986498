// SPDX-License-Identifier: MIT
// The judgement of `crashes`: incidents on a timeline, each with its cause class, evidence and
// next steps, and what each evidence source gave.
#pragma once

#include <doctor/crash/observation.hpp>
#include <doctor/model/finding.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace doctor::crash {

// One thing that went wrong: an observation as the catalogues read it, with the observations it
// absorbed (a burst of the same error, the same crash seen by a dump and by two events).
struct Incident {
  ObservationKind kind = ObservationKind::xid;
  std::string code;  // as in Observation::code
  std::string name;  // the catalogue's name: "GPU_HAS_FALLEN_OFF_THE_BUS", "VIDEO_TDR_FAILURE"
  std::string title; // one line for people: "Xid 79 on GPU 0000:41:00: GPU has fallen off the bus"
  CauseClass cause_class = CauseClass::other;
  Severity severity = Severity::error;
  std::string finding;  // the findings.json row whose message and fixes apply
  std::string meaning;  // what the code means, from the catalogue (may be empty)
  std::string subject;  // "GPU 0000:41:00", "python.exe", "this machine"
  std::string platform; // "linux" or "windows": that of the first observation
  When when;            // the first occurrence
  When last;            // the last occurrence when count > 1
  std::size_t count = 1;
  std::vector<Origin> origins;    // where it was seen (bounded)
  std::vector<Evidence> evidence; // what was read, source first
  std::vector<Fix> fixes;         // in the order to try them
  std::vector<std::string> notes; // what the correlation found ("follows Xid 149 at …")
  std::optional<std::size_t> consequence_of; // index of the incident this one follows from
  std::vector<std::pair<std::string, std::string>> fields; // the first observation's fields
};

// What one evidence source gave.
struct SourceStatus {
  std::string source;     // a file, "/dev/kmsg", "journal", "eventlog:System", "registry"
  std::string status;     // "read", "absent", "unreadable", "unsupported", "invalid", "skipped"
  std::string detail;     // why, or what was found ("3 boots", "kernel triage dump")
  std::size_t events = 0; // observations taken from it
};

// The machine's settings that change what an incident means, when the doctor could read them.
struct MachineContext {
  bool live = false;                      // the evidence is this machine's own
  std::optional<std::uint32_t> tdr_delay; // GraphicsDrivers\TdrDelay (seconds), absent: default
  std::optional<std::uint32_t> tdr_level; // GraphicsDrivers\TdrLevel
  bool tdr_settings_read = false;         // the registry was read (values may still be absent)
  std::vector<std::pair<std::string, std::string>> gpus; // PCI address "0000:41:00" -> name
};

// What evidence collection hands to the analysis: the observations read, what each source gave,
// and the machine's settings.
struct Collected {
  std::vector<Observation> observations;
  std::vector<SourceStatus> sources;
  MachineContext machine;
  // True when some source covers time before the current boot (a persistent journal, text logs,
  // pstore, kdump, dumps, event logs): without one, "no incident" proves little.
  bool earlier_boots_covered = false;
};

struct CrashReport {
  std::vector<Incident> incidents; // timeline order
  std::vector<SourceStatus> sources;
  std::vector<Finding> notes; // about the evidence itself (crash.no_persistent_log)
  std::size_t observations = 0;
};

} // namespace doctor::crash
