// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>
#include <doctor/platform/process.hpp>
#include <doctor/platform/sysroot.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace doctor::collect {

// Turns what the NVML child printed (its JSON report) and how it ended into NVML facts. A child
// that crashed, hung, or printed something unreadable gives status "probe_failed" with the
// reason.
facts::NvmlInfo nvml_facts_from_report(const platform::ProcessResult& result);

// Names each process NVML listed (the GPUs of `info`) from /proc/PID/comm under `root`; a name
// that cannot be read is unknown with the reason. The name is kept as the process set it
// (untrusted: the reports escape it).
void name_gpu_processes(const platform::SysRoot& root, facts::NvmlInfo& info);

// How an isolated child says it was confined (the "child" member of its report, from
// probe::run_confined), checked within the types' ranges; unknown with the reason when missing
// or malformed. Shared by every child's report.
facts::Fact<facts::ProbeChild> child_from_report(const nlohmann::ordered_json& report);

// Why NVML on this Linux system could only answer "driver not loaded", so that the child is not
// started (the reason becomes the fact); nullopt where a driver may answer, or where what would
// tell cannot be read.
std::optional<std::string> nvml_cannot_answer(const platform::SysRoot& root);

} // namespace doctor::collect
