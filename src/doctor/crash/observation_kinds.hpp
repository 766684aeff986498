// SPDX-License-Identifier: MIT
// The observation-kind table: one row per ObservationKind with its public name, the finding it
// reports, where it is seen, the properties the analysis folds and links by, and the function
// that reads one observation of the kind into an incident. The analysis reads this table and
// never switches on a kind: adding a kind is adding a row and its reader.
#pragma once

#include <doctor/crash/incident.hpp>
#include <doctor/crash/observation.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/finding.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace doctor::crash {

// Where a kind is seen.
enum class Seen { linux, windows, both };

// What a kind's reader is given besides the observation.
struct ReadContext {
  const kb::KnowledgeBase& kb;
  const MachineContext& machine;
  const kb::XidEntry* xid = nullptr; // the Xid catalogue row the observation names, if any
};

// Fills what only this kind knows (title, subject, catalogue name, verdict, evidence, notes) into
// `inc`, which already holds the finding's texts and fixes and the observation's lines.
using ReadFn = void (*)(Incident& inc, const Observation& obs, const ReadContext& ctx);

// Returns the Xid catalogue row an observation names, or nullptr.
using XidFn = const kb::XidEntry* (*)(const Observation& obs, const kb::CrashCatalog& catalog);

// Sets the finding's parameters from the observation.
using ParamsFn = void (*)(FindingDraft& draft, const Observation& obs);

// A row. Rows are written with designated initializers: what a row leaves out is false, 0 or
// nullptr.
struct KindInfo {
  ObservationKind kind = ObservationKind::xid;
  std::string_view name;    // public: the incident's "kind" in the JSON output
  std::string_view finding; // the findings.json row, unless the Xid row names another
  Seen seen = Seen::linux;  // the platforms whose recognisers make it
  // Each record is one event: two of them are two incidents however close (a second crash),
  // folded only within a second. Otherwise the same error on the same subject repeats while the
  // fault lasts and folds within ten minutes.
  bool one_per_event = false;
  bool restart = false;       // the machine went down (bug check, power loss)
  bool joins_restart = false; // a record of the restart next to it (EventLog 6008), never the lead
  // One event leaves several records of this kind within this window (a dump, BugCheck 1001 and
  // Kernel-Power 41; Display 4101, nvlddmkm 153 and a LiveKernelEvent): they fold into one
  // incident. 0: records of this kind never fold as one event.
  std::int64_t record_window_usec = 0;
  bool records_share_code = false; // those records carry the same code: two codes, two events
  bool gpu_timeout = false;        // a GPU timeout (TDR): counted for the repeated-TDR pattern
  // The driver's message after an Xid line that reports the same (the "fallen off the bus"
  // message after Xid 79): a consequence of the Xid of the same finding just before on the GPU.
  bool follows_xid = false;
  XidFn xid = nullptr;       // how the observation names its Xid row; nullptr: it names none
  ParamsFn params = nullptr; // the finding's parameters; nullptr: none
  ReadFn read = nullptr;     // every row has one
};

// Returns the row of `kind`. Every kind has one.
const KindInfo& kind_info(ObservationKind kind);

// Returns every row, in the order of ObservationKind.
std::span<const KindInfo> observation_kinds();

} // namespace doctor::crash
