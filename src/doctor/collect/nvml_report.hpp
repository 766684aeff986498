// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>
#include <doctor/platform/process.hpp>

namespace doctor::collect {

// Turns what the NVML child printed (its JSON report) and how it ended into NVML facts. A child
// that crashed, hung, or printed something unreadable gives status "probe_failed" with the
// reason.
facts::NvmlInfo nvml_facts_from_report(const platform::ProcessResult& result);

} // namespace doctor::collect
