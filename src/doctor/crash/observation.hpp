// SPDX-License-Identifier: MIT
// What the crash parsers hand to the analysis: one Observation per event seen in a dump, an event
// log or a kernel log, as read (facts), before any catalogue says what it means (judgement).
#pragma once

#include <doctor/formats/provenance.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doctor::crash {

// The time and place of an observation are those its source gave (formats/provenance.hpp).
using formats::Origin;
using formats::When;

// One second in When's microseconds.
inline constexpr std::int64_t k_one_second = 1000000;

// What kind of event was observed. The names (to_string) are public: they appear in the JSON
// output as the incident's "kind". Append only.
enum class ObservationKind {
  xid,             // NVRM: Xid (PCI:…): N, …
  sxid,            // nvidia-nvswitchN: SXid (PCI:…): N, …
  gpu_lost,        // "fallen off the bus" without an Xid line
  gpu_init_failed, // RmInitAdapter failed, rm_init_adapter failed, No NVIDIA GPU probed
  driver_mismatch, // NVRM: API mismatch (user space vs kernel module)
  driver_conflict, // the NVIDIA probe routine was not called (nouveau holds the GPU)
  gsp_error,       // GSP firmware could not start / missing firmware image
  mce,             // mce: [Hardware Error] …
  edac,            // EDAC MCn: … CE/UE error
  pcie_aer,        // PCIe Bus Error: severity=…
  oom_kill,        // Out of memory: Killed process N (python)
  kernel_oops,     // BUG: / Oops: / general protection fault
  kernel_panic,    // Kernel panic - not syncing
  lockup,          // soft/hard lockup, hung task
  bugcheck,        // a Windows stop error: dump header, BugCheck 1001, Kernel-Power 41 code
  tdr,             // a recovered GPU timeout: Display 4101, LiveKernelEvent 117/141, nvlddmkm 153
  nvidia_event,    // nvlddmkm 13/14 and other driver-logged GPU errors on Windows
  power_loss,      // Kernel-Power 41 with no bug check: power cut, hard reset, PSU
  unexpected_shutdown, // EventLog 6008
  whea,                // WHEA-Logger hardware error
  app_crash,           // a user-mode crash: Application Error 1000, WER APPCRASH, an MDMP
  app_hang,            // Application Hang 1002
};

// Returns the public name ("xid", "app_crash"), from the kind's row in observation_kinds.cpp.
std::string_view to_string(ObservationKind kind);

// The operating system whose evidence an observation was read from. The recogniser that makes an
// observation sets it: a kind such as app_crash comes from both (a Windows Application Error
// event, the Linux kernel's segfault line).
enum class Platform { linux, windows };

// Returns "linux" or "windows".
std::string_view to_string(Platform platform);

// One event as read from its source. `code` is the event's own number as text in its usual
// notation: "79" for an Xid, "0x116" for a bug check (masked: 0x1000007E becomes "0x7e", the
// original kept in the field "raw_code"), "0xc0000005" for an exception, "41" for an event id.
// `fields` hold what the source said, by name, in source order; the analysis and the report read
// them by name ("pci", "pid", "process", "message", "module", "param1".."param4", …).
struct Observation {
  ObservationKind kind = ObservationKind::xid;
  Platform platform = Platform::linux; // set by the recogniser (kernel_events, windows_events, …)
  std::string code;
  When when;
  Origin origin;
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::string> lines; // verbatim evidence (at most a few lines, each bounded)

  // Returns the value of field `name`, or nullptr.
  const std::string* field(std::string_view name) const {
    for (const auto& [k, v] : fields) {
      if (k == name) {
        return &v;
      }
    }
    return nullptr;
  }
  void set(std::string name, std::string value) {
    fields.emplace_back(std::move(name), std::move(value));
  }
};

} // namespace doctor::crash
