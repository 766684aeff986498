// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/facts/facts.hpp>
#include <doctor/platform/process.hpp>

#include <string>

namespace doctor::nvapi {

// The argument that makes the doctor's executable run as the NVML probe child.
inline constexpr const char* k_nvml_probe_argument = "__probe-nvml";

// Runs in the isolated child process: gives up machine-changing privileges, opens NVML
// (libnvidia-ml.so.1 / nvml.dll) at run time, queries the driver and every device, and writes
// the answers as one JSON object to standard output. Returns the process exit status (0 even
// when NVML fails: the failure is the answer). A crash or hang here kills only the child.
int run_nvml_probe_child();

// Turns what the child printed and how it ended into NVML facts. A child that crashed, hung,
// or printed something unreadable gives status "probe_failed" with the reason.
facts::NvmlInfo nvml_facts_from_probe(const platform::ProcessResult& result);

} // namespace doctor::nvapi
