// SPDX-License-Identifier: MIT
#pragma once

#include "options.hpp"

namespace doctor::cli {

// `crashes`: gathers the crash evidence of this machine (or a --sysroot tree), or of the files
// given with --from, and prints a timeline of incidents with causes, evidence and next steps.
// Returns 0 when no incident is an error, 1 when one is, 2 when no --from input could be read.
// Throws CommandError (exit 2) for a usage error.
int run_crashes(const CrashesOptions& options);

} // namespace doctor::cli
