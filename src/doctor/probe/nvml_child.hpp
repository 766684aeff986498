// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/probe/children.hpp>

namespace doctor::probe {

// Runs in the isolated child process (the row "nvml" of children.cpp): confined first
// (run_confined: address-space limit, no capabilities, root given up where the /dev/nvidia*
// nodes allow it), it opens NVML (libnvidia-ml.so.1 / nvml.dll) at run time, queries
// the driver and every device, and writes the answers, as NVML gave them, as one JSON object to
// standard output (the child's report; collect/nvml_collector.cpp checks every value and turns
// it into facts). Returns the process exit
// status (0 even when NVML fails: the failure is the answer). A crash or hang here kills only
// the child.
int run_nvml_child(const ChildInput& input);

} // namespace doctor::probe
