// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>
#include <doctor/model/finding.hpp>

#include <string>
#include <vector>

namespace doctor::report {

inline constexpr std::string_view k_probe_schema = "cudnn-doctor-probe/1";

// What `cudnn-doctor probe` found: NVML's answer, each isolated probe's run, and the findings of
// the checks over them.
struct ProbeReport {
  std::string tool_version;
  std::string kb_version;
  facts::NvmlInfo nvml;
  facts::ProbeInfo probe;
  std::vector<Finding> findings; // sorted worst first
  Severity fail_on = Severity::error;
};

// 1 if any finding is at or above `report.fail_on`, else 0.
int probe_exit_status(const ProbeReport& report);

// For people: each probe's library (where the loader found it), outcome, versions, calls,
// devices and computations, then the findings. ANSI colours when `color`; every string from the
// machine or a vendor library escaped.
std::string render_probe_text(const ProbeReport& report, bool color);

// {"schema": k_probe_schema, "tool", "command": "probe", "nvml" and "probes" (the snapshot's
// forms of those facts, docs/snapshot.md), "summary", "findings"} with a final newline.
std::string render_probe_json(const ProbeReport& report);

} // namespace doctor::report
