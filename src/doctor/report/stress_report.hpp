// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/finding.hpp>
#include <doctor/model/stress.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace doctor::report {

inline constexpr std::string_view k_stress_schema = "cudnn-doctor-stress/1";

// Exit statuses of `stress` (docs/stress.md).
inline constexpr int k_stress_passed = 0;
inline constexpr int k_stress_failed = 1;        // a finding at or above --fail-on
inline constexpr int k_stress_could_not_run = 4; // nothing was tested (no driver, no GPU, …)

// What `cudnn-doctor stress` found: the run and the findings of the check over it.
struct StressReport {
  std::string tool_version;
  std::string kb_version;
  facts::StressRun run;
  std::vector<Finding> findings; // sorted worst first
  Severity fail_on = Severity::error;
};

// k_stress_could_not_run when the run's status is "not_run"; else k_stress_failed if any
// finding is at or above `report.fail_on`; else k_stress_passed.
int stress_exit_status(const StressReport& report);

// The run as JSON: {"status", "detail", "level", "gpu", "inject", "library", "loaded",
// "driver_version", "calls", "device", "memory", "gemm", "bandwidth", "peaks", "telemetry",
// "seconds", "exit_code", "signal", "stderr_tail"} (docs/stress.md).
nlohmann::ordered_json stress_run_json(const facts::StressRun& run);

// For people: the library, each phase's figures (memory covered and errors, GEMM throughput and
// cross-checks, bandwidth against the peak), the telemetry's range, then the findings. Every
// string from the machine escaped.
std::string render_stress_text(const StressReport& report, bool color);

// {"schema": k_stress_schema, "tool", "command": "stress", "run", "summary", "findings"} with a
// final newline.
std::string render_stress_json(const StressReport& report);

} // namespace doctor::report
